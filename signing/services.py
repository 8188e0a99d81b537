"""Set an organisation's signing identity (an uploaded PKCS#12, or a trial one from the
instance's CA), and make the instance's trial CA once.

Only the organisation's administrators change its identity (`PermissionDenied` otherwise); each
change is one entry on the organisation's audit record.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.members import record_org_action
from core import secrets
from orgs.models import Organization
from orgs.selectors import is_member_admin
from signing import pki
from signing.models import IdentitySource, InstanceCA, SigningIdentity

MAX_PKCS12_BYTES = 64 * 1024


def instance_ca() -> InstanceCA:
    """The trial CA, made the first time anything needs it; two first uses make one."""
    ca = InstanceCA.objects.filter(pk=1).first()
    if ca is not None:
        return ca
    host = settings.SITE_URL.split("://", 1)[-1].split("/", 1)[0]
    material = pki.new_ca(common_name=f"Clusterbid trial CA ({host})"[:64], now=timezone.now())
    try:
        with transaction.atomic():
            return InstanceCA.objects.create(
                pk=1,
                certificate_der=material.cert_der,
                key_encrypted=secrets.encrypt(material.key_der),
            )
    except IntegrityError:
        return InstanceCA.objects.get(pk=1)


def identity_upload(
    *, org: Organization, user: User, pkcs12: bytes, password: str
) -> SigningIdentity:
    """Validate the PKCS#12 (it opens, holds a key and a certificate fit to sign) and make it
    the organisation's identity. Errors name the form field: `pkcs12` or `password`."""
    _admin_only(org=org, user=user)
    if not pkcs12:
        raise ValidationError({"pkcs12": ["Choose the PKCS#12 file (.p12 or .pfx) to upload."]})
    if len(pkcs12) > MAX_PKCS12_BYTES:
        raise ValidationError(
            {"pkcs12": [f"A PKCS#12 of a signing identity is a few KiB; this file is "
                        f"{len(pkcs12) // 1024} KiB (at most {MAX_PKCS12_BYTES // 1024} KiB)."]}
        )  # fmt: skip
    try:
        material = pki.load_pkcs12(pkcs12, password, now=timezone.now())
    except pki.KeyStoreError as exc:
        raise ValidationError({exc.field: [str(exc)]}) from None
    return _replace(org=org, user=user, material=material, source=IdentitySource.UPLOADED)


def identity_trial(*, org: Organization, user: User) -> SigningIdentity:
    """A trial identity from this instance's CA: for trying signing, never a legal identity."""
    _admin_only(org=org, user=user)
    ca = instance_ca()
    ca_material = pki.KeyMaterial(
        key_der=secrets.decrypt(ca.key_encrypted, what="the private key of the trial CA"),
        cert_der=bytes(ca.certificate_der),
    )
    material = pki.issue_trial(ca=ca_material, organization=org.name, now=timezone.now())
    return _replace(org=org, user=user, material=material, source=IdentitySource.TRIAL)


def _admin_only(*, org: Organization, user: User) -> None:
    if not is_member_admin(org=org, user=user):
        raise PermissionDenied(f"Only an administrator of {org.name} sets its signing identity.")


@transaction.atomic
def _replace(
    *, org: Organization, user: User, material: pki.KeyMaterial, source: str
) -> SigningIdentity:
    Organization.objects.select_for_update().get(pk=org.pk)
    now = timezone.now()
    previous = SigningIdentity.objects.filter(organization=org, replaced_at__isnull=True).first()
    if previous is not None:
        previous.replaced_at = now
        previous.save(update_fields=["replaced_at"])
    facts = pki.facts(material.cert_der)
    identity = SigningIdentity.objects.create(
        organization=org,
        source=source,
        certificate_der=material.cert_der,
        chain_der=b"".join(material.chain_der),
        chain_lengths=[len(c) for c in material.chain_der],
        key_encrypted=secrets.encrypt(material.key_der),
        subject=facts.subject[:500],
        common_name=facts.common_name[:200],
        issuer=facts.issuer[:500],
        serial=facts.serial[:80],
        not_before=facts.not_before,
        not_after=facts.not_after,
        certificate_sha256=facts.sha256,
        created_by=user,
    )
    record_org_action(
        organization=org,
        user=user,
        action="signing.identity_set",
        before={"certificate_sha256": previous.certificate_sha256} if previous else None,
        after={
            "source": source,
            "subject": identity.subject,
            "issuer": identity.issuer,
            "not_after": identity.not_after.isoformat(),
            "certificate_sha256": identity.certificate_sha256,
        },
    )
    return identity
