"""An organisation's sign-in through its own identity provider (OpenID Connect), and the
accounts that provider vouches for.

The client secret is stored only encrypted with SIGNING_KEY (core.secrets), like the
organisations' signing keys.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from engine.groupmap import GroupRule
from orgs.models import Organization


class OidcConnection(models.Model):
    """How one organisation's members sign in through its identity provider. The endpoints are
    read from the issuer's discovery document when the administrator saves it."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="oidc_connection"
    )
    enabled = models.BooleanField(default=True)
    issuer = models.URLField(max_length=500)
    client_id = models.CharField(max_length=255)
    client_secret_encrypted = models.BinaryField()
    groups_claim = models.CharField(max_length=100, default="groups")
    # [[group, role], ...] in the administrator's order (engine.groupmap).
    group_roles = models.JSONField(default=list)
    authorization_endpoint = models.URLField(max_length=500)
    token_endpoint = models.URLField(max_length=500)
    userinfo_endpoint = models.URLField(max_length=500)
    jwks_uri = models.URLField(max_length=500)
    # SHA-256 of the bearer token the provider's SCIM client sends; empty: SCIM is off.
    scim_token_sha256 = models.CharField(max_length=64, blank=True, db_index=True)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        verbose_name = "OIDC connection"

    def __str__(self) -> str:
        return f"{self.organization.name} → {self.issuer}"

    def rules(self) -> tuple[GroupRule, ...]:
        return tuple(GroupRule(group=group, role=role) for group, role in self.group_roles)


class OidcIdentity(models.Model):
    """The account a provider's subject (`sub`) signs in as. Accounts are linked by subject,
    never by e-mail address: a provider's administrators must not reach an account that
    exists apart from them, nor its other organisations."""

    connection = models.ForeignKey(
        OidcConnection, on_delete=models.CASCADE, related_name="identities"
    )
    subject = models.CharField(max_length=255)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identities"
    )
    created_at = models.DateTimeField(default=timezone.now)
    last_sign_in_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "OIDC identities"
        constraints = [
            models.UniqueConstraint(
                fields=["connection", "subject"], name="one_account_per_subject"
            )
        ]

    def __str__(self) -> str:
        return f"{self.subject} @ {self.connection.issuer}"


class OidcDomain(models.Model):
    """An e-mail domain whose people sign in through this connection; a domain leads to one
    organisation only, so typing an address never offers a choice of providers."""

    connection = models.ForeignKey(OidcConnection, on_delete=models.CASCADE, related_name="domains")
    domain = models.CharField(max_length=253, unique=True)  # lower-case

    class Meta:
        ordering = ["domain"]

    def __str__(self) -> str:
        return self.domain


class ScimAccount(models.Model):
    """An account the provider's SCIM client made for this connection. It belongs to the
    provider, so the first sign-in through it may link this account by its address."""

    connection = models.ForeignKey(
        OidcConnection, on_delete=models.CASCADE, related_name="scim_accounts"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scim_accounts"
    )
    external_id = models.CharField(max_length=255, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["connection", "user"], name="one_scim_account_per_user")
        ]
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.user} via SCIM @ {self.connection.organization}"
