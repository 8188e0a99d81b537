"""Reads of the trail, with tenancy built in: an organisation reads the entries addressed to it
(as the request's buyer or as the provider concerned) and the shared entries of the requests it
is invited to; a buyer reads a bid's entries only once the request's bids are visible to it."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import Q, QuerySet

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
    """One object's history as `org` may read it, oldest first."""
    if not valid_object_key(obj_key):
        return AuditEntry.objects.none()
    return visible_to(org=org).filter(obj_key=obj_key).select_related("org").order_by("seq")


def chain_verify() -> Result:
    """The whole chain, streamed in sequence order, against the head."""
    head = AuditHead.objects.filter(pk=1).values("seq", "sha256").first()
    fields = ["id", "sha256", *HASHED_FIELDS]
    rows = AuditEntry.objects.order_by("seq").values(*fields).iterator(chunk_size=2000)
    if head is None:
        return verify_rows(rows)
    return verify_rows(rows, head_seq=head["seq"], head_sha256=head["sha256"])
