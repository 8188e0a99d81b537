"""The request's gate: the buyer sets what an invitee must accept (an NDA's text or file, and
the compliance documents it must hold) while the request is a draft; an administrator of an
invited provider accepts it, which opens the details to that provider. The acceptance is
recorded on the audit chain with who, when and the hash of what was accepted."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction

from bids.audit import record_invitee, record_request
from bids.lifecycle import REQUEST, invitee_actor, request_move
from bids.models import CapacityRequest, DetailsGate, GateAcceptance
from core.errors import Conflict, ServiceError
from core.filetypes import UnsupportedFile, check_file
from core.uploads import atomic_keeping_no_orphans, check_upload
from orgs.models import Organization
from suppliers.choices import DocumentType
from suppliers.selectors import missing_documents


def gate_hash(*, nda_text: str, file_sha256: str, required_documents: list[str]) -> str:
    """What an acceptance binds to: the NDA's text, its file's bytes and the documents."""
    canonical = "\n".join(
        [f"text:{nda_text}", f"file:{file_sha256}", f"documents:{','.join(required_documents)}"]
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def gate_set(
    *,
    capacity_request: CapacityRequest,
    user: User,
    nda_text: str,
    nda_file: UploadedFile | None = None,
    remove_file: bool = False,
    required_documents: list[str],
) -> DetailsGate | None:
    """Set, change or (with nothing left to accept) lift the gate of a draft request."""
    request_move(capacity_request, "gate", user=user)
    unknown = [d for d in required_documents if d not in DocumentType.values]
    if unknown:
        raise ValidationError({"required_documents": [f"Unknown document type: {unknown[0]}."]})
    required = [d for d in DocumentType.values if d in required_documents]
    nda_text = (nda_text or "").strip()
    if nda_file is not None:
        check_upload(nda_file, limit=settings.EVIDENCE_MAX_BYTES, field="nda_file")
    with atomic_keeping_no_orphans():
        gate = DetailsGate.objects.select_for_update().filter(request=capacity_request).first()
        before = _summary(gate) if gate else None
        keeps_file = gate is not None and bool(gate.file) and not remove_file
        if not (nda_text or nda_file or keeps_file or required):
            if gate is not None:
                gate.delete()
                _record_gate(capacity_request, user, before=before, after=None)
            return None
        gate = gate or DetailsGate(request=capacity_request)
        gate.nda_text = nda_text
        gate.required_documents = required
        if nda_file is not None:
            _store_nda(gate, nda_file)
        elif remove_file:
            gate.file, gate.original_name, gate.size, gate.sha256 = "", "", 0, ""
            gate.content_type = ""
        gate.nda_sha256 = gate_hash(
            nda_text=gate.nda_text, file_sha256=gate.sha256, required_documents=required
        )
        gate.full_clean(exclude=["file", "request"])
        gate.save()
        _record_gate(capacity_request, user, before=before, after=_summary(gate))
    return gate


def _store_nda(gate: DetailsGate, upload: UploadedFile) -> None:
    gate.store(upload)
    try:
        kind = check_file(gate.original_name, gate.read_bytes())
    except UnsupportedFile as exc:
        raise ValidationError({"nda_file": [str(exc)]}) from None
    gate.content_type = kind.content_type
    gate.keep_as(kind.content_type)


def _summary(gate: DetailsGate) -> dict[str, object]:
    return {
        "nda_text_chars": len(gate.nda_text),
        "nda_file": gate.original_name,
        "required_documents": gate.required_labels,
        "nda_sha256": gate.nda_sha256,
    }


def _record_gate(
    capacity_request: CapacityRequest,
    user: User,
    *,
    before: dict[str, object] | None,
    after: dict[str, object] | None,
) -> None:
    record_request(
        capacity_request=capacity_request,
        action="request.gate",
        user=user,
        before=before,
        after=after,
    )


@transaction.atomic
def gate_accept(
    *, capacity_request: CapacityRequest, provider: Organization, user: User
) -> GateAcceptance:
    """An administrator of an invited provider accepts the gate; refused while a required
    compliance document is missing or expired (named), and a second time (`Conflict`)."""
    stored = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    REQUEST.allow(stored, "accept_gate", actor=invitee_actor(stored, user, provider_id=provider.pk))
    if not stored.invitations.filter(provider=provider).exists():
        raise ServiceError("Your organisation is not invited to this request.")
    gate = DetailsGate.objects.filter(request=stored).first()
    if gate is None:
        raise Conflict("This request asks nothing to be accepted: its details are open.")
    if GateAcceptance.objects.filter(request=stored, provider=provider).exists():
        raise Conflict(f"{provider.name} has already accepted this request's terms.")
    missing = missing_documents(org=provider, wanted=gate.required_documents)
    if missing:
        raise Conflict(
            f"This request requires a current {', '.join(missing)} on {provider.name}'s "
            "supplier profile. File it under Profile, then accept."
        )
    try:
        with transaction.atomic():
            acceptance = GateAcceptance.objects.create(
                request=stored, provider=provider, accepted_by=user, nda_sha256=gate.nda_sha256
            )
    except IntegrityError:
        raise Conflict(f"{provider.name} has already accepted this request's terms.") from None
    record_invitee(
        capacity_request=stored,
        provider_id=provider.pk,
        action="request.gate_accept",
        user=user,
        after={
            "provider": provider.name,
            "nda_sha256": gate.nda_sha256,
            "nda_file": gate.original_name,
            "required_documents": gate.required_labels,
        },
    )
    return acceptance
