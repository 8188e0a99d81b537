"""Signing a contract annex: the buyer's approver, then the provider's, each a PAdES signature
read back and validated with pyHanko; one changed byte fails it; a regenerated version carries
no signature."""

from __future__ import annotations

import hashlib
import io

import pytest
from asn1crypto import x509 as asn1_x509
from django.core.files.base import ContentFile
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from acceptance.models import Acknowledgement
from annexes.models import AnnexJob, AnnexKind, AnnexSignature
from annexes.services import annex_render_job
from annexes.signatures import signing_report
from annexes.signing import BUYER_SIGNED, SIGNED, UNSIGNED, annex_sign, signing_state
from audit.models import AuditEntry
from audit.selectors import chain_verify
from core.errors import ServiceError
from core.lifecycle import MoveRefused
from orgs.choices import MemberRole
from signing.selectors import TRIAL_MARK, instance_ca_certificate
from signing.services import identity_trial, identity_upload
from tests.annexes.signing_helpers import (
    approver_of,
    ca_pem,
    own_ca,
    pkcs12_file,
    rendered_contract,
)


@pytest.fixture
def signable(awarded, buyer, provider):
    identity_trial(org=buyer.org, user=buyer.user)
    identity_trial(org=provider.org, user=provider.user)
    return rendered_contract(awarded)


@pytest.fixture
def provider_approver(provider):
    return approver_of(provider.org, "pia")


def _pdf_of(signature: AnnexSignature) -> bytes:
    with signature.pdf.open("rb") as handle:
        return handle.read()


def _pyhanko_statuses(pdf: bytes) -> list:
    ca = asn1_x509.Certificate.load(instance_ca_certificate())
    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    return [
        validate_pdf_signature(s, ValidationContext(trust_roots=[ca], allow_fetching=False))
        for s in reader.embedded_signatures
    ]


def test_buyer_then_provider_sign_and_pyhanko_validates_both(
    signable, awarded, buyer, buyer_approver, provider, provider_approver
):
    first = annex_sign(annex=signable, user=buyer_approver.user, org=buyer.org, confirmed=True)
    assert signing_state(annex=signable).signed_by("buyer") == first
    second = annex_sign(
        annex=signable, user=provider_approver.user, org=provider.org, confirmed=True
    )
    pdf = _pdf_of(second)
    assert hashlib.sha256(pdf).hexdigest() == second.pdf_sha256
    # The issued PDF is untouched; the signed copy extends it byte for byte.
    with signable.pdf.open("rb") as handle:
        issued = handle.read()
    assert hashlib.sha256(issued).hexdigest() == signable.pdf_sha256
    assert pdf.startswith(_pdf_of(first)) and _pdf_of(first).startswith(issued)

    buyer_status, provider_status = _pyhanko_statuses(pdf)
    for status in (buyer_status, provider_status):
        assert status.intact and status.valid and status.trusted and status.bottom_line
    # The buyer's signature covers its revision; the provider's update only added a signature.
    assert buyer_status.coverage == SignatureCoverageLevel.ENTIRE_REVISION
    assert provider_status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    assert "Helix Labs" in buyer_status.signing_cert.subject.human_friendly
    assert "Northwind" in provider_status.signing_cert.subject.human_friendly

    report = signing_report(state=signing_state(annex=signable))
    assert report.status == SIGNED and report.all_ok
    assert [(s.party, s.organization, s.signer_name, s.signer_role) for s in report.signatures] == [
        ("buyer", "Helix Labs", "abel", MemberRole.APPROVER),
        ("provider", "Northwind", "Pia Signer", MemberRole.APPROVER),
    ]
    assert all(s.trial and s.verdict == "Intact and trusted." for s in report.signatures)
    assert all(s.signed_at is not None for s in report.signatures)
    assert "signer's own clock" in report.clock_note

    # Each signature's document hash is on the audit chain, with who and for which side.
    entries = AuditEntry.objects.filter(action="annex.sign").order_by("seq")
    assert [(e.party, e.org_id, e.after["document_sha256"]) for e in entries] == [
        ("buyer", buyer.org.pk, first.pdf_sha256),
        ("provider", provider.org.pk, second.pdf_sha256),
    ]
    assert entries[0].after["signed_over_sha256"] == signable.pdf_sha256
    assert chain_verify().intact


def test_one_changed_byte_fails_validation(signable, buyer, buyer_approver, provider):
    provider_approver = approver_of(provider.org, "pia")
    annex_sign(annex=signable, user=buyer_approver.user, org=buyer.org, confirmed=True)
    signed = annex_sign(
        annex=signable, user=provider_approver.user, org=provider.org, confirmed=True
    )
    pdf = bytearray(_pdf_of(signed))
    at = pdf.index(b"stream") + 40  # inside the first page's content, covered by both
    pdf[at] ^= 0x01
    statuses = _pyhanko_statuses(bytes(pdf))
    assert len(statuses) == 2
    assert not any(s.intact or s.bottom_line for s in statuses)

    # The same change made to the stored file: the page and the API say so.
    name = signed.pdf.name
    signed.pdf.storage.delete(name)
    signed.pdf.storage.save(name, ContentFile(bytes(pdf)))
    report = signing_report(state=signing_state(annex=signable))
    assert not report.stored_matches and not report.all_ok
    assert all(s.verdict.startswith("Modified") for s in report.signatures)


def test_a_regenerated_version_carries_no_signatures(
    signable, awarded, buyer, buyer_approver, provider
):
    annex_sign(annex=signable, user=buyer_approver.user, org=buyer.org, confirmed=True)
    ack = Acknowledgement.objects.filter(bid=awarded.bid).first()
    Acknowledgement.objects.create(
        bid=awarded.bid, fixture_version=ack.fixture_version, terms_revision=ack.terms_revision,
        status="accepted", exceptions=[], by=provider.user,
    )  # fmt: skip
    job = AnnexJob.objects.create(request=awarded.request, kind=AnnexKind.CONTRACT)
    second = annex_render_job(job_id=job.pk).annex
    assert second.version == 2
    state = signing_state(annex=second)
    assert state.signatures == () and signing_report(state=state).status == UNSIGNED
    with second.pdf.open("rb") as handle:
        assert _pyhanko_statuses(handle.read()) == []
    # Version 1 keeps its signature, and can no longer be completed: version 2 replaces it.
    assert signing_state(annex=signable).signed_by("buyer") is not None
    with pytest.raises(MoveRefused, match="superseded"):
        annex_sign(annex=signable, user=provider.user, org=provider.org, confirmed=True)


def test_buyer_first_approvers_only_nobody_twice(
    signable, buyer, buyer_requester, buyer_approver, provider, rival_provider, outsider
):
    with pytest.raises(MoveRefused, match="awaiting the buyer") as refused:
        annex_sign(annex=signable, user=provider.user, org=provider.org, confirmed=True)
    assert refused.value.status_code == 409
    with pytest.raises(MoveRefused, match="needs the role") as refused:
        annex_sign(annex=signable, user=buyer_requester.user, org=buyer.org, confirmed=True)
    assert refused.value.status_code == 403
    with pytest.raises(MoveRefused) as refused:
        annex_sign(annex=signable, user=buyer_approver.user, org=buyer.org)
    assert refused.value.status_code == 400  # the confirmation is missing
    annex_sign(annex=signable, user=buyer_approver.user, org=buyer.org, confirmed=True)
    assert signing_state(annex=signable).signatures[0].party == "buyer"
    with pytest.raises(MoveRefused, match="cannot be signed by the buyer"):
        annex_sign(annex=signable, user=buyer.user, org=buyer.org, confirmed=True)
    # The buyer's signer is also an approver of the provider: the second signature is not theirs.
    approver_of(provider.org, buyer_approver.user.username)
    with pytest.raises(MoveRefused, match="another person"):
        annex_sign(annex=signable, user=buyer_approver.user, org=provider.org, confirmed=True)
    from django.http import Http404

    for outside in (rival_provider, outsider):
        with pytest.raises(Http404):
            annex_sign(annex=signable, user=outside.user, org=outside.org, confirmed=True)
    assert signing_state(annex=signable).signatures[0].party == "buyer"
    assert len(signing_state(annex=signable).signatures) == 1
    assert TRIAL_MARK.startswith("Issued by this Clusterbid instance's trial CA")


def test_an_organisation_without_an_identity_is_told_how_to_get_one(awarded, buyer, buyer_approver):
    annex = rendered_contract(awarded)
    with pytest.raises(ServiceError, match="no signing identity yet"):
        annex_sign(annex=annex, user=buyer_approver.user, org=buyer.org, confirmed=True)
    assert not AnnexSignature.objects.exists()
    assert signing_report(state=signing_state(annex=annex)).status == UNSIGNED
    assert BUYER_SIGNED != UNSIGNED


def test_an_uploaded_identity_signs_and_is_trusted_once_its_root_is_configured(
    awarded, buyer, buyer_approver, settings, tmp_path
):
    ca = own_ca()
    identity_upload(org=buyer.org, user=buyer.user, pkcs12=pkcs12_file(ca=ca), password="s3cret")
    annex = rendered_contract(awarded)
    annex_sign(annex=annex, user=buyer_approver.user, org=buyer.org, confirmed=True)
    (view,) = signing_report(state=signing_state(annex=annex)).signatures
    assert view.unchanged and not view.trusted and not view.trial
    assert "trust root" in view.verdict
    root = tmp_path / "helix-root.pem"
    root.write_bytes(ca_pem(ca))
    settings.SIGNING_TRUST_ROOTS = [str(root)]
    (view,) = signing_report(state=signing_state(annex=annex)).signatures
    assert view.trusted and view.verdict == "Intact and trusted."
