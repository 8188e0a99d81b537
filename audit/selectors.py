"""Reads of the trail, with tenancy built in: an organisation reads the entries addressed to it
(as the request's buyer or as the provider concerned) and the shared entries of the requests it
is invited to; a buyer reads a bid's entries only once the request's bids are visible to it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from audit.chain import HASHED_FIELDS
from audit.models import AuditEntry, AuditHead
from audit.tenancy import hooks
from audit.verify import Result, verify_rows
from orgs.models import Organization

OBJECT_KINDS = ("request", "bid", "reservation", "incident", "org")
OBJECT_KEY = re.compile(rf"^({'|'.join(OBJECT_KINDS)}):([1-9][0-9]{{0,17}})$")


def object_key(kind: str, pk: Any) -> str:
    return f"{kind}:{int(pk)}"


def valid_object_key(value: str) -> bool:
    return OBJECT_KEY.match(value) is not None


def visible_to(*, org: Organization | None) -> QuerySet[AuditEntry]:
    if org is None:
        return AuditEntry.objects.none()
    as_buyer = Q(buyer_org_id=org.pk) & ~Q(
        hidden_while_sealed=True, request_id__in=hooks.sealed_for_buyer(org.pk)
    )
    as_provider = Q(provider_org_id=org.pk)
    as_invited = Q(shared=True, request_id__in=hooks.invited_to(org.pk))
    return AuditEntry.objects.filter(as_buyer | as_provider | as_invited)


def entries_for(*, org: Organization | None, obj_key: str) -> QuerySet[AuditEntry]:
    """One object's history as `org` may read it, oldest first, each entry with `number`: its
    place in that history (1, 2, 3, …) as this organisation reads it.

    The global `seq` counts every organisation's entries, sealed bids' included, so a tenant's
    gaps in it would count and time other parties' moves. `number` is computed at read, by a
    window over exactly the rows the reader may see, so nothing hidden can move it; it needs
    no lock and no stored counter. Appends commit in `seq` order (the chain head's lock), so a
    reader never sees a number that a later commit slips in under. When a sealed request's
    bids open, the entries that were hidden take their places in time and the buyer's later
    numbers move on with them: the staff-only `seq` is the stable reference.
    """
    if not valid_object_key(obj_key):
        return AuditEntry.objects.none()
    return (
        visible_to(org=org)
        .filter(obj_key=obj_key)
        .select_related("org")
        .annotate(number=Window(RowNumber(), order_by=F("seq").asc()))
        .order_by("seq")
    )


def chain_verify() -> Result:
    """The whole chain, streamed in sequence order, against the head."""
    head = AuditHead.objects.filter(pk=1).values("seq", "sha256").first()
    fields = ["id", "sha256", *HASHED_FIELDS]
    rows = AuditEntry.objects.order_by("seq").values(*fields).iterator(chunk_size=2000)
    if head is None:
        return verify_rows(rows)
    return verify_rows(rows, head_seq=head["seq"], head_sha256=head["sha256"])


@dataclass(frozen=True)
class LogFilters:
    """What the organisation's audit log is narrowed to; empty means any."""

    q: str = ""
    kind: str = ""
    obj_key: str = ""
    request_id: int | None = None
    actor: str = ""
    action: str = ""
    since: date | None = None
    until: date | None = None


def org_log(*, org: Organization | None, filters: LogFilters) -> QuerySet[AuditEntry]:
    """Every entry `org` may read (`visible_to`: never another provider's, nothing a sealed
    request still hides from its buyer), newest first, narrowed by `filters`. The acting
    organisation comes with each row, so a page costs the same queries whatever its length."""
    entries = visible_to(org=org).select_related("org")
    if filters.kind:
        entries = entries.filter(obj_key__startswith=f"{filters.kind}:")
    if filters.obj_key:
        entries = entries.filter(obj_key=filters.obj_key)
    if filters.request_id:
        entries = entries.filter(request_id=filters.request_id)
    if filters.actor:
        entries = entries.filter(actor_name=filters.actor)
    if filters.action:
        entries = entries.filter(action=filters.action)
    if filters.since:
        entries = entries.filter(at__date__gte=filters.since)
    if filters.until:
        entries = entries.filter(at__date__lte=filters.until)
    if filters.q:
        entries = entries.filter(
            Q(action__icontains=filters.q)
            | Q(actor_name__icontains=filters.q)
            | Q(obj_key__icontains=filters.q)
            | Q(reason__icontains=filters.q)
        )
    return entries.order_by("-seq")


def log_choices(*, org: Organization | None) -> tuple[list[str], list[str]]:
    """The actions and the people in `org`'s visible entries, for the log's filters."""
    visible = visible_to(org=org)
    actions = visible.order_by("action").values_list("action", flat=True).distinct()
    actors = (
        visible.exclude(actor_name="")
        .order_by("actor_name")
        .values_list("actor_name", flat=True)
        .distinct()
    )
    return list(actions), list(actors)
