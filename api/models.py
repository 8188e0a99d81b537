"""API tokens: the secret is shown once; only its SHA-256 and a short prefix are kept."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models

PREFIX_LENGTH = 8


def token_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def active(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=80)
    # The first characters of the secret, so a person can tell their tokens apart.
    prefix = models.CharField(max_length=PREFIX_LENGTH, db_index=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class IdempotentResponse(models.Model):
    """The stored answer to a creating API call sent with an `Idempotency-Key` header.

    The same key from the same user acting for the same organisation with the same body
    replays this response; nothing is created twice. The same key with another body is refused
    (see api.idempotency). A member of two organisations may use one key for each: a retry
    for one organisation never replays the other's answer.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotent_responses"
    )
    organization = models.ForeignKey(
        "orgs.Organization", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    key = models.CharField(max_length=200)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    body_sha256 = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "organization", "key"],
                condition=models.Q(organization__isnull=False),
                name="one_response_per_user_org_key",
            ),
            models.UniqueConstraint(
                fields=["user", "key"],
                condition=models.Q(organization__isnull=True),
                name="one_response_per_user_key_no_org",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"
