from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import parties
from bids.audit import record_request
from bids.choices import RequestStatus
from bids.lifecycle import request_move
from bids.models import CapacityRequest, Invitation
from bids.notices import deadline_change_notify, invitation_notify, invitations_on_publish
from bids.selectors import request_locked_fields
from core.errors import ServiceError
from orgs.choices import OrgKind
from orgs.models import Organization


@transaction.atomic
def request_create(*, buyer: Organization, user: User, data: dict[str, Any]) -> CapacityRequest:
    if buyer.kind != OrgKind.BUYER:
        raise ServiceError("Only a buyer organisation can post a capacity request.")
    req = CapacityRequest(buyer=buyer, created_by=user, **data)
    req.full_clean()
    req.save()
    record_request(request=req, action="request.create", user=user, after={"title": req.title})
    return req


# What an edit records: the request's own terms, not bookkeeping or who created it.
_UNRECORDED = {"id", "buyer", "created_by", "created_at", "updated_at", "published_at", "status"}


def _changes(
    stored: CapacityRequest, changed: CapacityRequest
) -> tuple[dict[str, Any], dict[str, Any]]:
    before, after = {}, {}
    for field in CapacityRequest._meta.concrete_fields:
        if field.name in _UNRECORDED:
            continue
        old, new = field.value_from_object(stored), field.value_from_object(changed)
        if old != new:
            before[field.name], after[field.name] = old, new
    return before, after


@transaction.atomic
def request_update(
    *, request: CapacityRequest, user: User, data: dict[str, Any]
) -> CapacityRequest:
    # A ModelForm has already copied its values onto `request`: compare with the stored row.
    stored = CapacityRequest.objects.select_for_update().get(pk=request.pk)
    request_move(stored, "edit", user=user)
    for field, value in data.items():
        setattr(request, field, value)
    _check_published_promises(stored=stored, changed=request)
    request.full_clean()
    request.save()
    before, after = _changes(stored, request)
    if after:
        record_request(request=stored, action="request.edit", user=user, before=before, after=after)
    deadline_change_notify(request=request, before=stored.bid_deadline)
    return request


def _check_published_promises(*, stored: CapacityRequest, changed: CapacityRequest) -> None:
    """Providers bid on what was published: sealing, time to bid and the allocation."""
    if stored.status != RequestStatus.OPEN:
        return
    errors = {
        field: lock.refusal
        for field, lock in request_locked_fields(request=stored).items()
        if getattr(changed, field) != getattr(stored, field)
    }
    # The browser's date-time field has minutes, no seconds: re-saving the form is no move.
    if changed.bid_deadline < stored.bid_deadline.replace(second=0, microsecond=0):
        deadline = timezone.localtime(stored.bid_deadline)
        errors["bid_deadline"] = (
            f"After publishing, the bid deadline can only move later than "
            f"{deadline:%d %b %Y at %H:%M %Z}. To stop bidding now, close the request."
        )
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def request_publish(*, request: CapacityRequest, user: User) -> CapacityRequest:
    request.full_clean()
    request_move(request, "publish", user=user)
    request.status = RequestStatus.OPEN
    request.published_at = timezone.now()
    request.save(update_fields=["status", "published_at", "updated_at"])
    record_request(
        request=request,
        action="request.publish",
        user=user,
        before={"status": RequestStatus.DRAFT},
        after={"status": request.status, "bid_deadline": request.bid_deadline},
    )
    invitations_on_publish(request=request)
    return request


@transaction.atomic
def request_invite(
    *, request: CapacityRequest, user: User, providers: list[Organization]
) -> list[Invitation]:
    request_move(request, "invite", user=user)
    created = []
    for provider in providers:
        if provider.kind != OrgKind.PROVIDER:
            raise ServiceError(f"{provider.name} is not a provider organisation.")
        invitation, was_created = Invitation.objects.get_or_create(
            request=request, provider=provider
        )
        if was_created:
            created.append(invitation)
            # The buyer's and this provider's: a rival never learns who else was invited.
            record_request(
                request=request,
                action="request.invite",
                user=user,
                after={"provider": provider.name},
                audience=parties(buyer_org_id=request.buyer_id, provider_org_id=provider.pk),
            )
            invitation_notify(request=request, provider=provider)
    return created


@transaction.atomic
def request_uninvite(*, request: CapacityRequest, user: User, provider: Organization) -> None:
    request_move(request, "uninvite", user=user)
    if request.bids.filter(provider=provider).exists():
        raise ServiceError(f"{provider.name} has already started a bid; it stays invited.")
    deleted, _ = Invitation.objects.filter(request=request, provider=provider).delete()
    if deleted:
        record_request(
            request=request,
            action="request.uninvite",
            user=user,
            before={"provider": provider.name},
            audience=parties(buyer_org_id=request.buyer_id, provider_org_id=provider.pk),
        )


@transaction.atomic
def request_close(*, request: CapacityRequest, user: User) -> CapacityRequest:
    request_move(request, "close", user=user)
    before = {"status": request.status}
    request.status = RequestStatus.CLOSED
    request.save(update_fields=["status", "updated_at"])
    record_request(
        request=request,
        action="request.close",
        user=user,
        before=before,
        after={"status": request.status},
    )
    return request


@transaction.atomic
def request_cancel(*, request: CapacityRequest, user: User) -> CapacityRequest:
    request_move(request, "cancel", user=user)
    before = {"status": request.status}
    request.status = RequestStatus.CANCELLED
    request.save(update_fields=["status", "updated_at"])
    record_request(
        request=request,
        action="request.cancel",
        user=user,
        before=before,
        after={"status": request.status},
    )
    return request
