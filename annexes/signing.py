"""Signing a contract annex version: the buyer's approver signs first, then the provider's.

Each signature is a PAdES baseline signature added to the PDF as an incremental update
(signing.pdf), so the earlier signature still covers the revision it signed. A version that
carries a signature is final: regenerating issues a new version, which carries none.

Signing runs in the request, not in a worker: it takes about a quarter of a second for a
7-page annex on the 2-core CI machine (docs/annexes.md), and the signer is told at once whether
it worked. With a timestamp authority configured its answer is awaited for at most
SIGNING_TSA_TIMEOUT_SECONDS, and a failure signs nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max
from django.http import Http404
from django.utils import timezone

from annexes.models import Annex, AnnexKind, AnnexSignature, SigningParty
from annexes.selectors import awarded_provider_id
from audit.services import Audience, audit_record
from bids.lifecycle import ROLE_LABELS
from core.errors import Conflict, ServiceError
from core.lifecycle import Actor, Lifecycle, Move, Need
from orgs.choices import MemberRole
from orgs.models import Organization
from orgs.selectors import actor_for
from signing import pdf as pdf_signing
from signing.selectors import identity_current, identity_key

APPROVERS = frozenset({MemberRole.APPROVER, MemberRole.ADMIN})
NOT_SIGNABLE, SUPERSEDED = "not_signable", "superseded"
UNSIGNED, BUYER_SIGNED, SIGNED = "unsigned", "buyer_signed", "signed"
STATUS_LABELS = {
    NOT_SIGNABLE: "not a contract annex",
    SUPERSEDED: "superseded by a later version",
    UNSIGNED: "awaiting the buyer's signature",
    BUYER_SIGNED: "signed by the buyer, awaiting the provider's signature",
    SIGNED: "signed by both parties",
}


@dataclass(frozen=True)
class SigningState:
    annex: Annex
    signatures: tuple[AnnexSignature, ...]
    latest_version: int
    buyer_id: int
    provider_id: int | None

    def signed_by(self, party: str) -> AnnexSignature | None:
        return next((s for s in self.signatures if s.party == party), None)


def signing_status(state: SigningState) -> str:
    if state.annex.kind != AnnexKind.CONTRACT or state.provider_id is None:
        return NOT_SIGNABLE
    parties = {s.party for s in state.signatures}
    if SigningParty.PROVIDER in parties:
        return SIGNED
    if state.annex.version != state.latest_version:
        return SUPERSEDED
    return BUYER_SIGNED if SigningParty.BUYER in parties else UNSIGNED


def _not_the_buyer_signer(state: SigningState, actor: Actor) -> str | None:
    first = state.signed_by(SigningParty.BUYER)
    if first is not None and first.signer_id == actor.user_id:
        return (
            "You signed this version for the buyer; the provider's signature is another person's."
        )
    return None


SIGNING: Lifecycle[SigningState] = Lifecycle(
    name="annex version",
    status_of=signing_status,
    status_label=lambda s: STATUS_LABELS[signing_status(s)],
    role_labels=ROLE_LABELS,
    moves=[
        Move("sign_buyer", "Sign as the buyer", "buyer", APPROVERS, frozenset({UNSIGNED}),
             needs=frozenset({Need.CONFIRM}), verb="signed by the buyer"),
        Move("sign_provider", "Sign as the provider", "provider", APPROVERS,
             frozenset({BUYER_SIGNED}), needs=frozenset({Need.CONFIRM}),
             who=_not_the_buyer_signer, verb="signed by the provider"),
    ],
)  # fmt: skip


def signing_state(*, annex: Annex) -> SigningState:
    latest = Annex.objects.filter(
        request_id=annex.request_id,
        reservation=annex.reservation_id,
        kind=annex.kind,
        period=annex.period,
    ).aggregate(v=Max("version"))["v"]
    signatures = tuple(
        AnnexSignature.objects.filter(annex=annex).select_related("organization", "identity")
    )
    return SigningState(
        annex=annex,
        signatures=signatures,
        latest_version=latest or annex.version,
        buyer_id=annex.request.buyer_id,
        provider_id=awarded_provider_id(annex.request, annex.reservation),
    )


def party_for(*, state: SigningState, org: Organization) -> str:
    if org.pk == state.buyer_id:
        return SigningParty.BUYER
    if state.provider_id is not None and org.pk == state.provider_id:
        return SigningParty.PROVIDER
    raise Http404


def signing_actor(*, state: SigningState, user: User) -> Actor:
    return actor_for(user=user, parties={"buyer": state.buyer_id, "provider": state.provider_id})


def annex_sign(
    *, annex: Annex, user: User, org: Organization, confirmed: bool = False
) -> AnnexSignature:
    """`org`'s signature on `annex` by `user`, who must be one of its approvers."""
    with transaction.atomic():
        # One signer at a time per version: each signs the bytes the previous one left.
        annex = Annex.objects.select_for_update().select_related("request").get(pk=annex.pk)
        state = signing_state(annex=annex)
        party = party_for(state=state, org=org)
        actor = signing_actor(state=state, user=user)
        SIGNING.require(state, f"sign_{party}", actor=actor, confirmed=confirmed)
        return _sign(state=state, party=party, org=org, user=user, role=actor.roles[party])


def _base_pdf(state: SigningState) -> tuple[bytes, str]:
    """The bytes to extend: the newest signed copy, or the issued PDF; refused when the stored
    file is not the one recorded."""
    last = state.signatures[-1] if state.signatures else None
    stored = last.pdf if last is not None else state.annex.pdf
    expected = last.pdf_sha256 if last is not None else state.annex.pdf_sha256
    with stored.open("rb") as handle:
        data = handle.read()
    if hashlib.sha256(data).hexdigest() != expected:
        raise ServiceError(
            "The stored PDF of this version no longer matches its recorded SHA-256; it is not "
            "signed. Tell the operator: the file was changed outside Clusterbid."
        )
    return data, expected


def _sign(
    *, state: SigningState, party: str, org: Organization, user: User, role: str
) -> AnnexSignature:
    identity = identity_current(org=org)
    if identity is None:
        raise ServiceError(
            f"{org.name} has no signing identity yet: an administrator sets one up on the "
            "Members page (upload a PKCS#12, or take a trial identity)."
        )
    if identity.not_after <= timezone.now():
        raise ServiceError(
            f"{org.name}'s signing certificate expired on {identity.not_after:%Y-%m-%d}: an "
            "administrator uploads a new one on the Members page."
        )
    base, base_sha256 = _base_pdf(state)
    signer_name = user.get_full_name() or user.get_username()
    annex = state.annex
    signer = pdf_signing.Signer(
        key_der=identity_key(identity=identity),
        cert_der=bytes(identity.certificate_der),
        chain_der=identity.chain(),
        name=signer_name,
        reason=f"{org.name} signs contract annex v{annex.version} as the {party} ({role})",
    )
    try:
        signed = pdf_signing.sign_pdf(
            base,
            signer=signer,
            field_name=f"Signature-{party}",
            tsa_url=settings.SIGNING_TSA_URL,
            tsa_timeout=settings.SIGNING_TSA_TIMEOUT_SECONDS,
        )
    except pdf_signing.PdfSigningError as exc:
        # Nothing the signer sent is wrong: the stored file, or the timestamp authority, failed.
        raise Conflict(str(exc)) from exc
    signature = AnnexSignature(
        annex=annex,
        party=party,
        organization=org,
        identity=identity,
        signer=user,
        signer_name=signer_name[:200],
        signer_role=role,
        field_name=f"Signature-{party}",
        pdf_sha256=hashlib.sha256(signed).hexdigest(),
        pdf_bytes=len(signed),
        signed_over_sha256=base_sha256,
        timestamped=bool(settings.SIGNING_TSA_URL),
        signed_at=timezone.now(),
    )
    signature.pdf.save(f"{signature.filename.removesuffix('.pdf')}-{party}.pdf",
                       ContentFile(signed), save=False)  # fmt: skip
    signature.save()
    _record(signature=signature, state=state, user=user)
    return signature


def _record(*, signature: AnnexSignature, state: SigningState, user: User) -> None:
    annex = state.annex
    audit_record(
        action="annex.sign",
        obj_key=f"request:{annex.request_id}",
        request_id=annex.request_id,
        user=user,
        org_id=signature.organization_id,
        party=signature.party,
        audience=Audience(buyer_org_id=state.buyer_id, provider_org_id=state.provider_id),
        after={
            "kind": annex.kind,
            "version": annex.version,
            "role": signature.signer_role,
            "signer": signature.signer_name,
            "document_sha256": signature.pdf_sha256,
            "signed_over_sha256": signature.signed_over_sha256,
            "certificate_sha256": signature.identity.certificate_sha256,
            "certificate_subject": signature.identity.subject,
            "trial_identity": signature.identity.is_trial,
        },
    )
