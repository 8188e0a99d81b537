"""Appending to the audit trail. Services of the layers above call `audit_record` inside their
own transaction, after their lifecycle check and before they return: the entry commits or rolls
back with the change it records."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, User
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from audit.chain import entry_sha256
from audit.models import AuditEntry, AuditHead, Party
from orgs.models import Membership


@dataclass(frozen=True)
class Audience:
    """Who may read an entry besides nobody: the request's buyer, one provider, every provider
    invited to the request (`shared`, for what reveals nothing about any bid). A bid's entries
    are `hidden_while_sealed`: its buyer reads them only once the request's bids are visible."""

    buyer_org_id: int | None = None
    provider_org_id: int | None = None
    shared: bool = False
    hidden_while_sealed: bool = False


def shared(*, buyer_org_id: int) -> Audience:
    return Audience(buyer_org_id=buyer_org_id, shared=True)


def buyer_only(*, buyer_org_id: int) -> Audience:
    return Audience(buyer_org_id=buyer_org_id)


def parties(*, buyer_org_id: int, provider_org_id: int) -> Audience:
    return Audience(buyer_org_id=buyer_org_id, provider_org_id=provider_org_id)


def bid_audience(*, buyer_org_id: int, provider_org_id: int) -> Audience:
    return Audience(
        buyer_org_id=buyer_org_id, provider_org_id=provider_org_id, hidden_while_sealed=True
    )


def as_json(value: Any) -> Any:
    """Decimals, dates and the like as the strings the stored JSON (and its hash) will hold."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def party_of(*, user: Any, buyer_org_id: int, provider_org_id: int) -> tuple[str, int | None]:
    """Which side a user acted for on an object both parties work on (the buyer's first)."""
    if getattr(user, "pk", None) is None:
        return Party.SYSTEM, None
    orgs = set(
        Membership.objects.filter(
            user_id=user.pk, organization_id__in=[buyer_org_id, provider_org_id]
        ).values_list("organization_id", flat=True)
    )
    if buyer_org_id in orgs:
        return Party.BUYER, buyer_org_id
    if provider_org_id in orgs:
        return Party.PROVIDER, provider_org_id
    return Party.SYSTEM, None


@transaction.atomic
def audit_record(
    *,
    action: str,
    obj_key: str,
    request_id: int | None,
    user: AbstractBaseUser | None,
    org_id: int | None,
    party: str,
    audience: Audience,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    reason: str = "",
) -> AuditEntry:
    """Append one entry. The head row stays locked until the caller's transaction ends, so
    concurrent writers queue behind it and never fork the chain."""
    head, _ = AuditHead.objects.select_for_update().get_or_create(pk=1)
    actor = user if isinstance(user, User) and user.pk is not None else None
    entry = AuditEntry(
        seq=head.seq + 1,
        at=timezone.now(),
        actor=actor,
        actor_name=actor.get_username() if actor is not None else "",
        org_id=org_id,
        party=party if actor is not None else Party.SYSTEM,
        action=action,
        obj_key=obj_key,
        request_id=request_id,
        buyer_org_id=audience.buyer_org_id,
        provider_org_id=audience.provider_org_id,
        shared=audience.shared,
        hidden_while_sealed=audience.hidden_while_sealed,
        before=as_json(before or {}),
        after=as_json(after or {}),
        reason=reason,
        prev_sha256=head.sha256,
    )
    entry.sha256 = entry_sha256(entry.hashed_fields())
    entry.save()
    AuditHead.objects.filter(pk=head.pk).update(seq=entry.seq, sha256=entry.sha256)
    return entry
