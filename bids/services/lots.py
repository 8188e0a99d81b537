"""The buyer's lots: added, changed and removed while the request is a draft, one audit entry
each. Once published, providers bid on the lots as they were published."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Max

from bids.audit import record_request
from bids.lifecycle import request_move
from bids.models import CapacityRequest, Lot
from bids.models.lots import LOT_FIELDS
from core.errors import ServiceError


def _lock_draft(*, capacity_request: CapacityRequest, user: User) -> CapacityRequest:
    stored = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    request_move(stored, "lots", user=user)  # the buyer's team, while a draft
    return stored


def _recorded(lot: Lot) -> dict[str, Any]:
    return {name: getattr(lot, name) for name in ("number", *LOT_FIELDS)}


def _set_fields(lot: Lot, data: dict[str, Any]) -> None:
    for field, value in data.items():
        if field not in LOT_FIELDS:
            raise ServiceError(f"{field} is not a lot field.")
        setattr(lot, field, value)


@transaction.atomic
def lot_add(*, capacity_request: CapacityRequest, user: User, data: dict[str, Any]) -> Lot:
    req = _lock_draft(capacity_request=capacity_request, user=user)
    last = req.lots.aggregate(n=Max("number"))["n"] or 0
    lot = Lot(request=req, number=last + 1)
    _set_fields(lot, data)
    lot.full_clean()
    lot.save()
    record_request(capacity_request=req, action="request.lot_add", user=user, after=_recorded(lot))
    return lot


@transaction.atomic
def lot_update(*, lot: Lot, user: User, data: dict[str, Any]) -> Lot:
    req = _lock_draft(capacity_request=lot.request, user=user)
    stored = Lot.objects.get(pk=lot.pk)
    _set_fields(lot, data)
    lot.request = req
    lot.full_clean()
    lot.save()
    before, after = _recorded(stored), _recorded(lot)
    changed = sorted(k for k in after if before[k] != after[k])
    if changed:
        record_request(
            capacity_request=req,
            action="request.lot_edit",
            user=user,
            before={k: before[k] for k in changed},
            after={k: after[k] for k in changed},
        )
    return lot


@transaction.atomic
def lot_remove(*, lot: Lot, user: User) -> None:
    req = _lock_draft(capacity_request=lot.request, user=user)
    before = _recorded(lot)
    number = lot.number
    lot.delete()
    # No bid names a draft's lots yet: the later ones move up, so the numbers stay 1, 2, 3…
    for later in req.lots.filter(number__gt=number).order_by("number"):
        Lot.objects.filter(pk=later.pk).update(number=F("number") - 1)
    record_request(capacity_request=req, action="request.lot_remove", user=user, before=before)
