"""Token writes: create (returns the secret once), revoke, and record use."""

from __future__ import annotations

import secrets
from datetime import UTC, timedelta

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
    """The active token of an active user for this secret, its `user` loaded (its use
    recorded), or None."""
    digest = token_digest(secret)
    user = next(iter(User.objects.raw(_TOKEN_SQL, [digest])), None)
    if user is None:
        return None
    last_used = user.token_last_used_at  # type: ignore[attr-defined]
    if last_used is not None and timezone.is_naive(last_used):
        last_used = timezone.make_aware(last_used, UTC)  # SQLite hands back naive UTC
    token = ApiToken.from_db(
        ApiToken.objects.db,
        ["id", "user_id", "name", "prefix", "digest", "last_used_at", "revoked_at"],
        [user.token_id, user.pk, user.token_name, user.token_prefix, digest, last_used, None],  # type: ignore[attr-defined]
    )
    token.user = user
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


# The user and their token in one statement written once: every token call runs it, and the
# ORM took four times as long to build it as the database took to answer.
_TOKEN_SQL = (
    "SELECT u.*, t.id AS token_id, t.name AS token_name, t.prefix AS token_prefix,"
    " t.last_used_at AS token_last_used_at"
    f" FROM {ApiToken._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id"
    " WHERE t.digest = %s AND t.revoked_at IS NULL AND u.is_active"
)
