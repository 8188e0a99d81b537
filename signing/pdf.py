"""PAdES signatures on PDF bytes with pyHanko, without Django: add one as an incremental update
(earlier signatures stay valid), and validate every signature a PDF carries against trust roots.

Validation never fetches anything (no OCSP, no CRL, no AIA): the verdict depends only on the
bytes, the trust roots and the clock, so the page and the API agree and work offline.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime

from asn1crypto import keys as asn1_keys
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.misc import PdfError
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import fields, signers
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.general import SigningError
from pyhanko.sign.signers.pdf_signer import PdfSignatureMetadata
from pyhanko.sign.timestamps import HTTPTimeStamper
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.status import PdfSignatureStatus, SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.registry import SimpleCertificateStore


class PdfSigningError(RuntimeError):
    """pyHanko could not sign these bytes (a damaged PDF, an unreachable timestamp authority)."""


@dataclass(frozen=True)
class Signer:
    key_der: bytes  # PKCS#8
    cert_der: bytes
    chain_der: tuple[bytes, ...]
    name: str  # the person, printed in the signature dictionary's /Name
    reason: str


def sign_pdf(
    pdf: bytes, *, signer: Signer, field_name: str, tsa_url: str = "", tsa_timeout: int = 10
) -> bytes:
    """`pdf` with one more PAdES baseline signature (B-B, or B-T with a timestamp authority)."""
    cert = asn1_x509.Certificate.load(signer.cert_der)
    simple = signers.SimpleSigner(
        signing_cert=cert,
        signing_key=asn1_keys.PrivateKeyInfo.load(signer.key_der),
        cert_registry=SimpleCertificateStore.from_certs(
            [asn1_x509.Certificate.load(c) for c in signer.chain_der]
        ),
    )
    meta = PdfSignatureMetadata(
        field_name=field_name,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        name=signer.name,
        reason=signer.reason,
    )
    timestamper = HTTPTimeStamper(tsa_url, timeout=tsa_timeout) if tsa_url else None
    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
        out = signers.sign_pdf(writer, meta, signer=simple, timestamper=timestamper)
    except (PdfError, SigningError, OSError) as exc:
        raise PdfSigningError(f"The PDF could not be signed: {exc}") from exc
    return out.getvalue()


@dataclass(frozen=True)
class SignatureCheck:
    field_name: str
    signer_cert_der: bytes
    signer_subject: str
    signer_issuer: str
    signer_not_after: datetime
    signed_at: datetime | None  # the signer's own clock (the signing-time attribute)
    timestamp_at: datetime | None  # an RFC 3161 authority's time, when one stamped it
    timestamp_trusted: bool
    intact: bool  # the signed bytes hash to what was signed
    valid: bool  # the signature verifies with the certificate's key
    trusted: bool  # the certificate chains to a trust root
    covers_whole_file: bool  # no revision after this signature
    later_changes_allowed: bool  # what came after only adds signatures or form fields

    @property
    def unchanged(self) -> bool:
        """The document is what this signer signed, apart from later signatures."""
        return self.intact and self.valid and self.later_changes_allowed


@dataclass(frozen=True)
class PdfCheck:
    readable: bool
    error: str
    signatures: tuple[SignatureCheck, ...]


def validate_pdf(pdf: bytes, *, trust_roots: list[bytes]) -> PdfCheck:
    """Every embedded signature, oldest first, checked against `trust_roots` (DER)."""
    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        embedded = list(reader.embedded_signatures)
    except (PdfError, ValueError, KeyError) as exc:
        return PdfCheck(readable=False, error=f"Not a readable PDF: {exc}", signatures=())
    checks = []
    for signature in embedded:
        context = ValidationContext(
            trust_roots=[asn1_x509.Certificate.load(r) for r in trust_roots], allow_fetching=False
        )
        try:
            status = validate_pdf_signature(signature, context)
        except (PdfError, ValueError, KeyError) as exc:
            return PdfCheck(
                readable=False, error=f"A signature cannot be read: {exc}", signatures=()
            )
        checks.append(_check(signature.field_name, status))
    return PdfCheck(readable=True, error="", signatures=tuple(checks))


def _check(field_name: str, status: PdfSignatureStatus) -> SignatureCheck:
    cert = status.signing_cert
    stamp = status.timestamp_validity
    level = status.modification_level
    return SignatureCheck(
        field_name=field_name,
        signer_cert_der=cert.dump(),
        signer_subject=cert.subject.human_friendly,
        signer_issuer=cert.issuer.human_friendly,
        signer_not_after=cert.not_valid_after,
        signed_at=status.signer_reported_dt,
        timestamp_at=stamp.timestamp if stamp is not None else None,
        timestamp_trusted=bool(stamp is not None and stamp.intact and stamp.trusted),
        intact=bool(status.intact),
        valid=bool(status.valid),
        trusted=bool(status.trusted),
        covers_whole_file=status.coverage == SignatureCoverageLevel.ENTIRE_FILE,
        later_changes_allowed=bool(status.docmdp_ok)
        and (level is None or level <= ModificationLevel.FORM_FILLING),
    )
