"""A contract annex rendered for real, approvers on both sides, identities and PKCS#12 files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from annexes.models import Annex, AnnexJob, AnnexKind
from annexes.services import annex_render_job
from orgs.choices import MemberRole
from tests.conftest import Role
from tests.factories import MembershipFactory, UserFactory


def rendered_contract(awarded: Any) -> Annex:
    job = AnnexJob.objects.create(request=awarded.request, kind=AnnexKind.CONTRACT)
    annex = annex_render_job(job_id=job.pk).annex
    assert annex is not None
    return annex


def approver_of(org: Any, username: str, role: str = MemberRole.APPROVER) -> Role:
    user = UserFactory(username=username, first_name=username.title(), last_name="Signer")
    MembershipFactory(user=user, organization=org, role=role)
    return Role(user=user, org=org)


def own_ca() -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    """An organisation's own CA, outside Clusterbid."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Helix Corporate CA")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def pkcs12_file(
    *,
    password: str = "s3cret",
    with_key: bool = True,
    sign_usage: bool = True,
    ca: tuple[Any, Any] | None = None,
) -> bytes:
    """A PKCS#12 as a corporate CA would issue it: Helix Labs' signing certificate and chain."""
    ca_key, ca_cert = ca or own_ca()
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name(
                [
                    x509.NameAttribute(NameOID.COMMON_NAME, "Helix Labs contracts"),
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Helix Labs"),
                ]
            )
        )
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=365))
        .add_extension(
            x509.KeyUsage(
                digital_signature=sign_usage,
                content_commitment=sign_usage,
                key_encipherment=not sign_usage,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    encryption = serialization.BestAvailableEncryption(password.encode())
    return pkcs12.serialize_key_and_certificates(
        b"helix", key if with_key else None, cert, [ca_cert], encryption
    )


def ca_pem(ca: tuple[Any, Any]) -> bytes:
    return ca[1].public_bytes(serialization.Encoding.PEM)


def placeholder_signature(annex: Annex) -> Annex:
    """The buyer's signature row on `annex` with placeholder bytes: for who-reaches-what tests."""
    from django.core.files.base import ContentFile
    from django.utils import timezone

    from annexes.models import AnnexSignature
    from orgs.models import Membership
    from signing.services import identity_trial

    buyer = annex.request.buyer
    admin = Membership.objects.filter(organization=buyer, role=MemberRole.ADMIN).first().user
    identity = identity_trial(org=buyer, user=admin)
    row = AnnexSignature(
        annex=annex, party="buyer", organization=buyer, identity=identity,
        signer=admin, signer_name=admin.username, signer_role=MemberRole.ADMIN,
        field_name="Signature-buyer", pdf_sha256="0" * 64, pdf_bytes=9,
        signed_over_sha256=annex.pdf_sha256, signed_at=timezone.now(),
    )  # fmt: skip
    row.pdf.save("signed.pdf", ContentFile(b"%PDF-1.4\n"), save=False)
    row.save()
    return annex
