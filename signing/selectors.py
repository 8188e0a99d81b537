"""Reading signing identities and the trust roots that signatures are validated against."""

from __future__ import annotations

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from core import secrets
from orgs.models import Organization
from signing.models import InstanceCA, SigningIdentity

TRIAL_MARK = "Issued by this Clusterbid instance's trial CA — not a legal identity."


def identity_current(*, org: Organization | int) -> SigningIdentity | None:
    org_id = org if isinstance(org, int) else org.pk
    return SigningIdentity.objects.filter(organization_id=org_id, replaced_at__isnull=True).first()


def identity_history(*, org: Organization) -> list[SigningIdentity]:
    """The current identity and the ten it replaced most recently, newest first."""
    return list(SigningIdentity.objects.filter(organization=org).select_related("created_by")[:11])


def identity_key(*, identity: SigningIdentity) -> bytes:
    """The identity's private key (PKCS#8 DER), decrypted for one signature."""
    return secrets.decrypt(
        identity.key_encrypted, what=f"the signing key of {identity.organization.name}"
    )


def instance_ca_certificate() -> bytes | None:
    ca = InstanceCA.objects.filter(pk=1).only("certificate_der").first()
    return bytes(ca.certificate_der) if ca is not None else None


def configured_roots() -> list[bytes]:
    """The roots named by SIGNING_TRUST_ROOTS (PEM files, each may hold several), as DER."""
    roots: list[bytes] = []
    for name in settings.SIGNING_TRUST_ROOTS:
        try:
            certs = x509.load_pem_x509_certificates(Path(name).read_bytes())
        except (OSError, ValueError) as exc:
            raise ImproperlyConfigured(
                f"SIGNING_TRUST_ROOTS: {name} is not a readable PEM certificate file ({exc})"
            ) from exc
        roots += [c.public_bytes(serialization.Encoding.DER) for c in certs]
    return roots


def trust_roots() -> list[bytes]:
    """The instance's trial CA (once made) and the configured roots."""
    ca = instance_ca_certificate()
    return ([ca] if ca is not None else []) + configured_roots()
