"""Addenda: the buyer tells every invitee of an open request something new, on the record."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from bids.audit import record_request
from bids.lifecycle import REQUEST, request_actor
from bids.models import Addendum, CapacityRequest
from bids.models.addenda import TEXT_MAX, TITLE_MAX
from bids.notices import addendum_notify
from core.lifecycle import require_confirmation


def _addendum_errors(title: str, text: str) -> dict[str, list[str]]:
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
    return errors


@transaction.atomic
def addendum_publish(
    *, request: CapacityRequest, user: User, title: str, text: str, confirmed: bool = False
) -> Addendum:
    """Publish addendum N+1 to an open request, confirmed: every invited provider's members
    hear of it, each provider for itself. Once published it never changes; a correction is a
    new addendum."""
    # The lock numbers addenda one at a time: two buyers publishing at once get 1 and 2.
    stored = CapacityRequest.objects.select_for_update().select_related("buyer").get(pk=request.pk)
    decision = REQUEST.allow(stored, "addendum", actor=request_actor(stored, user))
    title, text = (title or "").strip(), (text or "").strip()
    errors = _addendum_errors(title, text)
    if errors:
        raise ValidationError(errors)
    require_confirmation(decision, confirmed=confirmed)
    last = stored.addenda.aggregate(last=Max("number"))["last"] or 0
    addendum = Addendum.objects.create(
        request=stored,
        number=last + 1,
        title=title,
        text=text,
        published_by=user,
        published_at=timezone.now(),
    )
    # Shared: every invitee reads the addendum itself, so its record is theirs too.
    record_request(
        request=stored,
        action="request.addendum",
        user=user,
        after={"number": addendum.number, "title": addendum.title},
    )
    addendum_notify(addendum=addendum)
    return addendum
