"""What the annex page and the API say about a version's signatures: each one validated with
pyHanko against the configured trust roots, read back from the stored signed PDF."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from annexes.models import Annex, AnnexSignature
from annexes.signing import STATUS_LABELS, SigningState, signing_status
from signing import pki
from signing.pdf import SignatureCheck, validate_pdf
from signing.selectors import instance_ca_certificate, trust_roots

OWN_CLOCK = (
    "No timestamp authority is configured: each signing time is the signer's own clock, as "
    "Clusterbid's server read it."
)


@dataclass(frozen=True)
class SignatureView:
    party: str
    organization: str
    signer_name: str
    signer_role: str
    signed_at: datetime | None  # as the signature states it
    timestamp_at: datetime | None
    recorded_at: datetime
    document_sha256: str
    certificate_subject: str
    certificate_issuer: str
    certificate_not_after: datetime | None
    found: bool  # the stored document carries this signature
    intact: bool
    unchanged: bool  # the document is what this party signed, apart from later signatures
    trusted: bool
    trial: bool

    @property
    def verdict(self) -> str:
        if not self.found:
            return "Missing: the stored document no longer carries this signature."
        if not self.unchanged:
            return "Modified: the document changed after this signature."
        if not self.trusted:
            return "Intact, but the certificate does not chain to a configured trust root."
        return "Intact and trusted."

    @property
    def ok(self) -> bool:
        return self.found and self.unchanged and self.trusted


@dataclass(frozen=True)
class SigningReport:
    annex: Annex
    status: str
    status_label: str
    signatures: tuple[SignatureView, ...]
    signed_pdf_sha256: str  # the newest signed copy, as recorded ("" while unsigned)
    stored_matches: bool  # the stored signed copy hashes to what was recorded
    readable: bool
    error: str
    timestamp_authority: str
    clock_note: str

    @property
    def final(self) -> bool:
        return bool(self.signatures)

    @property
    def all_ok(self) -> bool:
        return self.stored_matches and self.readable and all(s.ok for s in self.signatures)


def signing_report(*, state: SigningState, pdf: bytes | None = None) -> SigningReport:
    """The version's signatures validated. `pdf` replaces the stored signed copy (to check a
    copy someone was sent); by default the newest stored one is read back."""
    rows = state.signatures
    last = rows[-1] if rows else None
    if last is not None and pdf is None:
        with last.pdf.open("rb") as handle:
            pdf = handle.read()
    checks: dict[str, SignatureCheck] = {}
    readable, error = True, ""
    if pdf is not None:
        result = validate_pdf(pdf, trust_roots=trust_roots())
        readable, error = result.readable, result.error
        checks = {c.field_name: c for c in result.signatures}
    ca = instance_ca_certificate()
    tsa = settings.SIGNING_TSA_URL
    return SigningReport(
        annex=state.annex,
        status=signing_status(state),
        status_label=STATUS_LABELS[signing_status(state)],
        signatures=tuple(_view(row, checks.get(row.field_name), ca) for row in rows),
        signed_pdf_sha256=last.pdf_sha256 if last is not None else "",
        stored_matches=last is None or hashlib.sha256(pdf or b"").hexdigest() == last.pdf_sha256,
        readable=readable,
        error=error,
        timestamp_authority=tsa,
        clock_note="" if tsa else OWN_CLOCK,
    )


def _view(row: AnnexSignature, check: SignatureCheck | None, ca: bytes | None) -> SignatureView:
    cert = bytes(row.identity.certificate_der) if check is None else check.signer_cert_der
    facts = pki.facts(cert)
    return SignatureView(
        party=row.party,
        organization=row.organization.name,
        signer_name=row.signer_name,
        signer_role=row.signer_role,
        signed_at=check.signed_at if check else None,
        timestamp_at=check.timestamp_at if check else None,
        recorded_at=row.signed_at,
        document_sha256=row.pdf_sha256,
        certificate_subject=facts.subject,
        certificate_issuer=facts.issuer,
        certificate_not_after=facts.not_after,
        found=check is not None,
        intact=bool(check and check.intact),
        unchanged=bool(check and check.unchanged),
        trusted=bool(check and check.trusted),
        trial=ca is not None and pki.issued_by(cert, ca),
    )
