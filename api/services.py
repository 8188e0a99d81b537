"""Token writes: create (returns the secret once), revoke, and record use."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from api.models import PREFIX_LENGTH, ApiToken, token_digest
from core.errors import ServiceError

# Writing last_used_at on every request would make each API call a write; once a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)
MAX_ACTIVE_TOKENS = 20


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """A new token and its secret. The secret is not stored and cannot be shown again."""
    name = name.strip()
    if not name:
        raise ServiceError({"name": ["Name the token, e.g. the cluster it is used from."]})
    if ApiToken.objects.active().filter(user=user).count() >= MAX_ACTIVE_TOKENS:
        raise ServiceError(f"You have {MAX_ACTIVE_TOKENS} active tokens; revoke one first.")
    secret = "cb_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name[:80], prefix=secret[:PREFIX_LENGTH], digest=token_digest(secret)
    )
    return token, secret


def token_revoke(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_authenticate(*, secret: str) -> ApiToken | None:
    """The active token for this secret (its use recorded), or None."""
    token = (
        ApiToken.objects.active()
        .select_related("user")
        .filter(digest=token_digest(secret), user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
