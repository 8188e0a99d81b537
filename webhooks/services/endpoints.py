"""An organisation's webhook endpoints: created, edited, their secret rotated, deleted; by its
administrators only, each change on the organisation's audit trail (never a secret, never the
URL's path, which for Slack is itself a credential)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from audit.members import record_org_action
from core.secrets import decrypt, encrypt
from notices.choices import Event as NoticeEvent
from orgs.models import Organization
from orgs.selectors import is_member_admin
from webhooks.choices import PayloadFormat
from webhooks.models import Endpoint
from webhooks.selectors import events_for
from webhooks.transport import TargetRefused, check_url

SECRET_PREFIX = "whsec_"


def _require_admin(*, organization: Organization, user: User) -> None:
    if not is_member_admin(org=organization, user=user):
        raise PermissionDenied(f"Only an administrator of {organization.name} manages webhooks.")


def _events_refusal(*, organization: Organization, events: Sequence[str]) -> str | None:
    """Why these events cannot be sent to this organisation: unknown codes, none, or codes of
    notices its kind never receives (a buyer is not told of an award)."""
    unknown = sorted(set(events) - set(NoticeEvent.values))
    if unknown:
        return f"Unknown events: {', '.join(unknown)}."
    if not events:
        return "Choose at least one event to send."
    allowed = {code for code, _label in events_for(organization)}
    refused = [code for code in dict.fromkeys(events) if code not in allowed]
    if refused:
        kind = organization.get_kind_display().lower()
        return f"A {kind} organisation is not sent these events: {', '.join(refused)}."
    return None


def _checked(
    *,
    organization: Organization,
    url: str,
    events: Sequence[str],
    payload_format: str,
    routing_key: str,
    has_key: bool = False,
) -> list[str]:
    errors: dict[str, str] = {}
    try:
        check_url(url, allow_private=settings.WEBHOOK_ALLOW_PRIVATE_TARGETS)
    except TargetRefused as exc:
        errors["url"] = str(exc)
    refusal = _events_refusal(organization=organization, events=events)
    if refusal:
        errors["events"] = refusal
    if payload_format not in PayloadFormat.values:
        errors["payload_format"] = f"Unknown format {payload_format!r}."
    if payload_format == PayloadFormat.PAGERDUTY and not routing_key.strip() and not has_key:
        errors["routing_key"] = "PagerDuty needs the integration (routing) key of its service."
    if errors:
        raise ValidationError(errors)
    return [code for code in NoticeEvent.values if code in set(events)]  # the table's order


def _described(endpoint: Endpoint) -> dict[str, Any]:
    return {
        "endpoint": str(endpoint.public_id),
        "host": urlsplit(endpoint.url).hostname,
        "format": endpoint.payload_format,
        "events": list(endpoint.events),
        "active": endpoint.active,
    }


def secret_new() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def secrets_in_force(*, endpoint: Endpoint, now: datetime | None = None) -> list[str]:
    """The secrets a delivery is signed with: the current one, then the previous one while its
    grace period after a rotation lasts."""
    now = now or timezone.now()
    what = f"the signing secret of the webhook to {urlsplit(endpoint.url).hostname}"
    found = [decrypt(endpoint.secret_token, what=what).decode()]
    if (
        endpoint.previous_secret_token
        and endpoint.previous_secret_until
        and now < endpoint.previous_secret_until
    ):
        found.append(decrypt(endpoint.previous_secret_token, what=what).decode())
    return found


def routing_key(*, endpoint: Endpoint) -> str:
    """PagerDuty's integration key of the endpoint, for one delivery ("" when none)."""
    if not endpoint.routing_key_token:
        return ""
    what = f"the PagerDuty routing key of the webhook to {urlsplit(endpoint.url).hostname}"
    return decrypt(endpoint.routing_key_token, what=what).decode()


def _sealed_key(routing_key: str) -> bytes | None:
    key = routing_key.strip()
    return encrypt(key.encode()) if key else None


@transaction.atomic
def endpoint_create(
    *,
    organization: Organization,
    user: User,
    url: str,
    events: Sequence[str],
    payload_format: str = PayloadFormat.GENERIC,
    description: str = "",
    routing_key: str = "",
) -> tuple[Endpoint, str]:
    """A new endpoint and its signing secret, returned this once (only a token encrypted with
    SIGNING_KEY is stored, as for the routing key)."""
    _require_admin(organization=organization, user=user)
    codes = _checked(
        organization=organization,
        url=url,
        events=events,
        payload_format=payload_format,
        routing_key=routing_key,
    )
    secret = secret_new()
    endpoint = Endpoint.objects.create(
        organization=organization,
        url=url,
        description=description.strip(),
        payload_format=payload_format,
        events=codes,
        routing_key_token=_sealed_key(routing_key),
        secret_token=encrypt(secret.encode()),
        created_by=user,
    )
    record_org_action(
        organization=organization, user=user, action="webhook.create", after=_described(endpoint)
    )
    return endpoint, secret


@transaction.atomic
def endpoint_update(
    *,
    endpoint: Endpoint,
    user: User,
    url: str,
    events: Sequence[str],
    active: bool,
    description: str = "",
    routing_key: str = "",
) -> Endpoint:
    """Change where and what an endpoint is sent; its format and secret stay, and so does its
    routing key unless a new one is given (the stored one is never shown again)."""
    _require_admin(organization=endpoint.organization, user=user)
    codes = _checked(
        organization=endpoint.organization,
        url=url,
        events=events,
        payload_format=endpoint.payload_format,
        routing_key=routing_key,
        has_key=bool(endpoint.routing_key_token),
    )
    before = _described(endpoint)
    endpoint.url = url
    endpoint.events = codes
    endpoint.active = active
    endpoint.description = description.strip()
    if routing_key.strip():
        endpoint.routing_key_token = _sealed_key(routing_key)
    endpoint.save()
    record_org_action(
        organization=endpoint.organization,
        user=user,
        action="webhook.edit",
        before=before,
        # That the routing key was replaced, never the key itself.
        after={**_described(endpoint), "routing_key_replaced": bool(routing_key.strip())},
    )
    return endpoint


@transaction.atomic
def endpoint_rotate_secret(*, endpoint: Endpoint, user: User) -> str:
    """A new secret, returned this once. Deliveries are signed with the old one too for
    WEBHOOK_SECRET_GRACE_HOURS, so a receiver can switch without refusing any."""
    _require_admin(organization=endpoint.organization, user=user)
    now = timezone.now()
    secret = secret_new()
    endpoint.previous_secret_token = endpoint.secret_token
    endpoint.previous_secret_until = now + timedelta(hours=settings.WEBHOOK_SECRET_GRACE_HOURS)
    endpoint.secret_token = encrypt(secret.encode())
    endpoint.secret_rotated_at = now
    endpoint.save()
    record_org_action(
        organization=endpoint.organization,
        user=user,
        action="webhook.rotate",
        after={
            "endpoint": str(endpoint.public_id),
            "old_secret_until": endpoint.previous_secret_until,
        },
    )
    return secret


@transaction.atomic
def endpoint_delete(*, endpoint: Endpoint, user: User) -> None:
    """Remove the endpoint with its delivery log; the audit trail keeps that it existed."""
    _require_admin(organization=endpoint.organization, user=user)
    described = _described(endpoint)
    endpoint.delete()
    record_org_action(
        organization=endpoint.organization, user=user, action="webhook.delete", before=described
    )
