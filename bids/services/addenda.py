"""Addenda: the buyer tells every invitee of an open request something new, on the record.

An addendum makes a new request version (the request as published is version 1). It may
extend the bid deadline, say in a summary what changed, and answer a question (published
without the asker's name). Every invitee acknowledges it before its next submit.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from bids.audit import record_invitee, record_request
from bids.lifecycle import REQUEST, invitee_actor, request_actor
from bids.models import Addendum, AddendumAcknowledgement, CapacityRequest, Question
from bids.models.addenda import SUMMARY_MAX, TEXT_MAX, TITLE_MAX
from bids.notices import addendum_notify
from core.errors import ServiceError
from core.lifecycle import require_confirmation
from orgs.models import Organization


def _addendum_errors(title: str, text: str, summary: str = "") -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if not title:
        errors["title"] = ["Give the addendum a title: invitees see it in the notice's subject."]
    elif len(title) > TITLE_MAX:
        errors["title"] = [
            f"Keep the title to {TITLE_MAX} characters; it has {len(title)}. "
            "Put the detail in the text."
        ]
    if not text:
        errors["text"] = ["Write what the addendum says: invitees read this text."]
    elif len(text) > TEXT_MAX:
        errors["text"] = [
            f"Keep the text to {TEXT_MAX:,} characters; it has {len(text):,}. "
            "Split it into several addenda."
        ]
    if len(summary) > SUMMARY_MAX:
        errors["summary"] = [
            f"Keep the summary of changes to {SUMMARY_MAX:,} characters; it has "
            f"{len(summary):,}. The text holds the detail."
        ]
    return errors


def _when(value: datetime) -> str:
    return f"{timezone.localtime(value):%-d %b %Y %H:%M %Z}"


def deadline_extension_errors(
    capacity_request: CapacityRequest, bid_deadline: datetime | None
) -> list[str]:
    """An addendum only extends the deadline, and never past the reservation's start."""
    if bid_deadline is None:
        return []
    if bid_deadline <= capacity_request.bid_deadline:
        return [
            "An addendum can only extend the bid deadline: give a time after the current "
            f"deadline ({_when(capacity_request.bid_deadline)})."
        ]
    if timezone.localtime(bid_deadline).date() >= capacity_request.reservation_start:
        return [
            "The new bid deadline must fall before the reservation starts "
            f"({capacity_request.reservation_start:%-d %b %Y})."
        ]
    return []


@transaction.atomic
def addendum_publish(
    *,
    capacity_request: CapacityRequest,
    user: User,
    title: str,
    text: str,
    confirmed: bool = False,
    bid_deadline: datetime | None = None,
    summary: str = "",
    question: Question | None = None,
) -> Addendum:
    """Publish addendum N+1 (request version N+2) to an open request, confirmed: every invited
    provider's members hear of it, each provider for itself. Once published it never changes;
    a correction is a new addendum."""
    # The lock numbers addenda one at a time: two buyers publishing at once get 1 and 2.
    stored = (
        CapacityRequest.objects.select_for_update()
        .select_related("buyer")
        .get(pk=capacity_request.pk)
    )
    decision = REQUEST.allow(stored, "addendum", actor=request_actor(stored, user))
    title, text, summary = (title or "").strip(), (text or "").strip(), (summary or "").strip()
    errors = _addendum_errors(title, text, summary)
    if deadline_errors := deadline_extension_errors(stored, bid_deadline):
        errors["bid_deadline"] = deadline_errors
    if errors:
        raise ValidationError(errors)
    require_confirmation(decision, confirmed=confirmed)
    last = stored.addenda.aggregate(last=Max("number"))["last"] or 0
    before = stored.bid_deadline
    if bid_deadline is not None:
        stored.bid_deadline = bid_deadline
        stored.save(update_fields=["bid_deadline", "updated_at"])
        capacity_request.bid_deadline = bid_deadline
    addendum = Addendum.objects.create(
        request=stored,
        number=last + 1,
        version=last + 2,
        title=title,
        text=text,
        summary=summary,
        deadline_before=before if bid_deadline is not None else None,
        deadline_after=bid_deadline,
        question=question,
        published_by=user,
        published_at=timezone.now(),
    )
    after: dict[str, object] = {
        "number": addendum.number,
        "version": addendum.version,
        "title": addendum.title,
    }
    if bid_deadline is not None:
        after["bid_deadline"] = bid_deadline
    if question is not None:
        after["question"] = question.published_number  # the published number: never who asked
    # Shared: every invitee reads the addendum itself, so its record is theirs too.
    record_request(
        capacity_request=stored,
        action="request.addendum",
        user=user,
        before={"bid_deadline": before} if bid_deadline is not None else None,
        after=after,
    )
    addendum_notify(addendum=addendum)
    return addendum


@transaction.atomic
def addendum_acknowledge(
    *, addendum: Addendum, provider: Organization, user: User
) -> AddendumAcknowledgement:
    """The provider has read addendum N; acknowledging twice keeps the first record."""
    request = addendum.request
    REQUEST.allow(
        request, "acknowledge", actor=invitee_actor(request, user, provider_id=provider.pk)
    )
    if not request.invitations.filter(provider=provider).exists():
        raise ServiceError("Your organisation is not invited to this request.")
    existing = AddendumAcknowledgement.objects.filter(addendum=addendum, provider=provider).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            ack = AddendumAcknowledgement.objects.create(
                addendum=addendum,
                provider=provider,
                acknowledged_by=user,
                acknowledged_at=timezone.now(),
            )
    except IntegrityError:  # a colleague acknowledged at the same moment
        return AddendumAcknowledgement.objects.get(addendum=addendum, provider=provider)
    record_invitee(
        capacity_request=request,
        provider_id=provider.pk,
        action="addendum.acknowledge",
        user=user,
        after={"addendum": addendum.number, "version": addendum.version},
    )
    return ack
