"""Each organisation's signing identity, and the instance's trial CA that may issue one.

Private keys are stored only encrypted with SIGNING_KEY (core.secrets); certificates are
public and stored as DER.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from orgs.models import Organization


class InstanceCA(models.Model):
    """The one trial CA of this Clusterbid instance (row 1), made on first use or by
    `manage.py signing_ca`. What it issues is marked as a trial on every signature."""

    certificate_der = models.BinaryField()
    key_encrypted = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="one_instance_ca")]

    def __str__(self) -> str:
        return "Trial CA of this instance"


class IdentitySource(models.TextChoices):
    UPLOADED = "uploaded", "Uploaded PKCS#12"
    TRIAL = "trial", "Issued by this Clusterbid instance's trial CA"


class SigningIdentity(models.Model):
    """An organisation signs with its current identity (`replaced_at` empty). A replaced one is
    kept: the signatures made with it still name it."""

    organization = models.ForeignKey(
        Organization, on_delete=models.PROTECT, related_name="signing_identities"
    )
    source = models.CharField(max_length=10, choices=IdentitySource.choices)
    certificate_der = models.BinaryField()
    # The PKCS#12's other certificates (intermediates, root), DER, concatenated with lengths
    # kept in chain_lengths so each can be read back.
    chain_der = models.BinaryField(default=b"")
    chain_lengths = models.JSONField(default=list)
    key_encrypted = models.BinaryField()
    subject = models.CharField(max_length=500)
    common_name = models.CharField(max_length=200, blank=True)
    issuer = models.CharField(max_length=500)
    serial = models.CharField(max_length=80)
    not_before = models.DateTimeField()
    not_after = models.DateTimeField()
    certificate_sha256 = models.CharField(max_length=64)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    replaced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization"],
                condition=models.Q(replaced_at__isnull=True),
                name="one_current_signing_identity",
            )
        ]
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "signing identities"

    def __str__(self) -> str:
        return f"{self.subject} ({self.get_source_display()})"

    @property
    def is_trial(self) -> bool:
        return self.source == IdentitySource.TRIAL

    def chain(self) -> tuple[bytes, ...]:
        data, out, at = bytes(self.chain_der), [], 0
        for length in self.chain_lengths:
            out.append(data[at : at + length])
            at += length
        return tuple(out)
