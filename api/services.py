"""Token writes: create (returns the secret once), revoke, and record use."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from api.models import PREFIX_LENGTH, ApiToken, token_digest
from audit.members import record_membership_change
from core.errors import ServiceError
from orgs.models import Organization

# Writing last_used_at on every request would make each API call a write; once a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)
MAX_ACTIVE_TOKENS = 20


@transaction.atomic
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
    _record(token, action="token.create", user=user)
    return token, secret


@transaction.atomic
def token_revoke(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        _record(token, action="token.revoke", user=token.user)
    return token


def _record(token: ApiToken, *, action: str, user: User) -> None:
    """On the record of every organisation the owner belongs to: a token acts for any of them
    (as the owner would), so each one's trail says which key could, from when to when."""
    after = {"user": user.get_username(), "token": token.prefix, "name": token.name}
    for organization in Organization.objects.filter(memberships__user=user).order_by("pk"):
        record_membership_change(organization=organization, user=user, action=action, after=after)


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
