from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import buyer_only, parties
from bids.audit import record_request
from bids.choices import RequestStatus
from bids.lifecycle import REQUEST, request_actor, request_move
from bids.lots import lots_publish_check
from bids.models import ApprovalAction, CapacityRequest, Invitation
from bids.models.requests import PURCHASING_FIELDS
from bids.notices import (
    closed_early_notify,
    deadline_change_notify,
    invitation_notify,
    invitations_on_publish,
    reopened_notify,
)
from bids.selectors import request_locked_fields
from bids.services.approvals import approval_gate, approval_used
from bids.signals import scoring_inputs_changed_on_commit
from core.errors import ServiceError
from core.lifecycle import require_confirmation
from orgs.choices import OrgKind
from orgs.models import Organization


@transaction.atomic
def request_create(*, buyer: Organization, user: User, data: dict[str, Any]) -> CapacityRequest:
    if buyer.kind != OrgKind.BUYER:
        raise ServiceError("Only a buyer organisation can post a capacity request.")
    req = CapacityRequest(buyer=buyer, created_by=user, **data)
    req.full_clean()
    req.save()
    record_request(
        capacity_request=req, action="request.create", user=user, after={"title": req.title}
    )
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
    *, capacity_request: CapacityRequest, user: User, data: dict[str, Any]
) -> CapacityRequest:
    # A ModelForm has already copied its values onto `request`: compare with the stored row.
    stored = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    request_move(stored, "edit", user=user)
    for field, value in data.items():
        setattr(capacity_request, field, value)
    _check_published_promises(stored=stored, changed=capacity_request)
    capacity_request.full_clean()
    capacity_request.save()
    before, after = _changes(stored, capacity_request)
    own = {name for name in after if name in PURCHASING_FIELDS}
    if set(after) - own:
        record_request(
            capacity_request=stored,
            action="request.edit",
            user=user,
            before={k: v for k, v in before.items() if k not in own},
            after={k: v for k, v in after.items() if k not in own},
        )
    if own:
        # The budget and references are the buyer's: never in an entry its invitees read.
        record_request(
            capacity_request=stored,
            action="request.edit_purchasing",
            user=user,
            before={k: before[k] for k in own},
            after={k: after[k] for k in own},
            audience=buyer_only(buyer_org_id=stored.buyer_id),
        )
    deadline_change_notify(capacity_request=capacity_request, before=stored.bid_deadline)
    return capacity_request


def _check_published_promises(*, stored: CapacityRequest, changed: CapacityRequest) -> None:
    """Providers bid on what was published: sealing, time to bid and the allocation."""
    if stored.status != RequestStatus.OPEN:
        return
    errors = {
        field: lock.refusal
        for field, lock in request_locked_fields(capacity_request=stored).items()
        if getattr(changed, field) != getattr(stored, field)
    }
    # The browser's date-time field has minutes, no seconds: re-saving the form is no move.
    if changed.bid_deadline < stored.bid_deadline.replace(second=0, microsecond=0):
        deadline = timezone.localtime(stored.bid_deadline)
        errors["bid_deadline"] = (
            f"After publishing, the bid deadline can only move later than "
            f"{deadline:%-d %b %Y at %H:%M %Z}. To stop bidding now, close the request."
        )
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def request_publish(*, capacity_request: CapacityRequest, user: User) -> CapacityRequest:
    capacity_request.full_clean()
    request_move(capacity_request, "publish", user=user)
    lots_publish_check(capacity_request=capacity_request)
    approval_gate(capacity_request=capacity_request, action=ApprovalAction.PUBLISH, bid=None)
    capacity_request.status = RequestStatus.OPEN
    capacity_request.published_at = timezone.now()
    capacity_request.save(update_fields=["status", "published_at", "updated_at"])
    approval_used(capacity_request=capacity_request, action=ApprovalAction.PUBLISH)
    record_request(
        capacity_request=capacity_request,
        action="request.publish",
        user=user,
        before={"status": RequestStatus.DRAFT},
        after={"status": capacity_request.status, "bid_deadline": capacity_request.bid_deadline},
    )
    invitations_on_publish(capacity_request=capacity_request)
    return capacity_request


@transaction.atomic
def request_invite(
    *, capacity_request: CapacityRequest, user: User, providers: list[Organization]
) -> list[Invitation]:
    request_move(capacity_request, "invite", user=user)
    created = []
    for provider in providers:
        if provider.kind != OrgKind.PROVIDER:
            raise ServiceError(f"{provider.name} is not a provider organisation.")
        invitation, was_created = Invitation.objects.get_or_create(
            request=capacity_request, provider=provider
        )
        if was_created:
            created.append(invitation)
            # The buyer's and this provider's: a rival never learns who else was invited.
            record_request(
                capacity_request=capacity_request,
                action="request.invite",
                user=user,
                after={"provider": provider.name},
                audience=parties(
                    buyer_org_id=capacity_request.buyer_id, provider_org_id=provider.pk
                ),
            )
            invitation_notify(capacity_request=capacity_request, provider=provider)
    return created


@transaction.atomic
def request_uninvite(
    *, capacity_request: CapacityRequest, user: User, provider: Organization
) -> None:
    request_move(capacity_request, "uninvite", user=user)
    if capacity_request.bids.filter(provider=provider).exists():
        raise ServiceError(f"{provider.name} has already started a bid; it stays invited.")
    deleted, _ = Invitation.objects.filter(request=capacity_request, provider=provider).delete()
    if deleted:
        record_request(
            capacity_request=capacity_request,
            action="request.uninvite",
            user=user,
            before={"provider": provider.name},
            audience=parties(buyer_org_id=capacity_request.buyer_id, provider_org_id=provider.pk),
        )


@transaction.atomic
def request_close(
    *, capacity_request: CapacityRequest, user: User, confirmed: bool = False
) -> CapacityRequest:
    """Stop bidding now, confirmed. Sealing ends at the deadline or the close, whichever comes
    first: a sealed request's bids open to the buyer at once. Drafts freeze (the bid table's
    moves read `closed_to_bids_reason`). The one place a close happens: notices hook in here."""
    request_move(capacity_request, "close", user=user, confirmed=confirmed)
    now = timezone.now()
    before = {"status": capacity_request.status}
    capacity_request.status = RequestStatus.CLOSED
    capacity_request.closed_at = now
    if capacity_request.bids_opened_at is None:
        # A close after the deadline finds the bids already open since the deadline.
        capacity_request.bids_opened_at = min(now, capacity_request.bid_deadline)
    capacity_request.save(update_fields=["status", "closed_at", "bids_opened_at", "updated_at"])
    record_request(
        capacity_request=capacity_request,
        action="request.close",
        user=user,
        before=before,
        after={
            "status": capacity_request.status,
            "bids_opened_at": capacity_request.bids_opened_at,
        },
    )
    closed_early_notify(capacity_request=capacity_request)
    # Scoring reads each provider's record as of the close: the scores move with it.
    scoring_inputs_changed_on_commit(capacity_request=capacity_request)
    return capacity_request


def new_deadline_errors(
    capacity_request: CapacityRequest, bid_deadline: datetime | None
) -> list[str]:
    if bid_deadline is None:
        return ["Give the new bid deadline: providers bid until then."]
    if bid_deadline <= timezone.now():
        return ["The new bid deadline must be in the future."]
    deadline_date = timezone.localtime(bid_deadline).date()
    if deadline_date >= capacity_request.reservation_start:
        return [
            "The new bid deadline must fall before the reservation starts "
            f"({capacity_request.reservation_start:%-d %b %Y})."
        ]
    return []


@transaction.atomic
def request_reopen(
    *,
    capacity_request: CapacityRequest,
    user: User,
    bid_deadline: datetime | None,
    confirmed: bool = False,
) -> CapacityRequest:
    """Take bids again until a new deadline, confirmed. Bids opened at the close stay visible
    to the buyer. The one place a reopen happens: notices to every invitee hook in here."""
    stored = CapacityRequest.objects.select_for_update().get(pk=capacity_request.pk)
    decision = REQUEST.allow(stored, "reopen", actor=request_actor(stored, user))
    errors = new_deadline_errors(stored, bid_deadline)
    if errors:
        raise ValidationError({"bid_deadline": errors})
    require_confirmation(decision, confirmed=confirmed)
    assert bid_deadline is not None
    before = {"status": stored.status, "bid_deadline": stored.bid_deadline}
    capacity_request.status = RequestStatus.OPEN
    capacity_request.bid_deadline = bid_deadline
    capacity_request.closed_at = None
    capacity_request.bids_opened_at = stored.bids_opened_at
    capacity_request.save(update_fields=["status", "bid_deadline", "closed_at", "updated_at"])
    record_request(
        capacity_request=capacity_request,
        action="request.reopen",
        user=user,
        before=before,
        after={"status": capacity_request.status, "bid_deadline": capacity_request.bid_deadline},
    )
    reopened_notify(capacity_request=capacity_request)
    # Open again, the record is read as of today: the scores move back with it.
    scoring_inputs_changed_on_commit(capacity_request=capacity_request)
    return capacity_request


@transaction.atomic
def request_cancel(
    *, capacity_request: CapacityRequest, user: User, confirmed: bool = False
) -> CapacityRequest:
    request_move(capacity_request, "cancel", user=user, confirmed=confirmed)
    before = {"status": capacity_request.status}
    capacity_request.status = RequestStatus.CANCELLED
    capacity_request.save(update_fields=["status", "updated_at"])
    record_request(
        capacity_request=capacity_request,
        action="request.cancel",
        user=user,
        before=before,
        after={"status": capacity_request.status},
    )
    return capacity_request
