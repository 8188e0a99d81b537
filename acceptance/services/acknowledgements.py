"""A provider acknowledges, per bid, the request's current fixture version and terms."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from acceptance.models import Acknowledgement, AckStatus, Fixture, FixtureVersion
from acceptance.selectors import exception_field_choices
from bids.choices import RequestStatus
from bids.models import Bid
from bids.services import ServiceError
from contracts.models import HandoffTerms, HandoffTermsRevision

MAX_EXCEPTIONS = 20


def _clean_exceptions(
    raw: list[dict[str, Any]], allowed: set[str]
) -> tuple[list[dict[str, str]], list[str]]:
    cleaned: list[dict[str, str]] = []
    problems: list[str] = []
    for i, item in enumerate(raw, start=1):
        text = str(item.get("text") or "").strip()
        field = str(item.get("field") or "").strip()
        if not text:
            if field:
                problems.append(f"Exception {i}: say what you take exception to.")
            continue
        if field and field not in allowed:
            problems.append(f"Exception {i}: {field!r} is not a field of this fixture or terms.")
            continue
        cleaned.append({"text": text, "field": field})
    if len(cleaned) > MAX_EXCEPTIONS:
        problems.append(f"List at most {MAX_EXCEPTIONS} exceptions.")
    return cleaned, problems


@transaction.atomic
def acknowledgement_submit(
    *, bid: Bid, user: User, status: str, exceptions: list[dict[str, Any]] | None = None
) -> Acknowledgement:
    """Record the provider's answer to the current fixture version and terms revision."""
    req = bid.request
    if req.status != RequestStatus.OPEN or timezone.now() >= req.bid_deadline:
        raise ServiceError("This request no longer takes bids, so nothing can be acknowledged.")
    if not req.invitations.filter(provider_id=bid.provider_id).exists():
        raise ServiceError("Your organisation is not invited to bid on this request.")
    fixture = Fixture.objects.filter(request=req).first()
    version = (
        FixtureVersion.objects.filter(fixture=fixture, number=fixture.current_number).first()
        if fixture is not None
        else None
    )
    terms = HandoffTerms.objects.filter(request=req).first()
    revision = (
        HandoffTermsRevision.objects.filter(terms=terms, number=terms.version).first()
        if terms is not None
        else None
    )
    if version is None and revision is None:
        raise ServiceError(
            "The buyer has attached neither a fixture nor handoff terms; nothing to acknowledge."
        )
    if status not in AckStatus.values:
        raise ValidationError({"status": ["Choose “Accept” or “Accept with exceptions”."]})
    allowed = {value for value, _label in exception_field_choices(version=version, terms=terms)}
    cleaned, problems = _clean_exceptions(list(exceptions or []), allowed)
    if problems:
        raise ValidationError({"exceptions": problems})
    if status == AckStatus.ACCEPTED and cleaned:
        raise ValidationError(
            {"status": ["You listed exceptions: choose “Accept with exceptions”, or remove them."]}
        )
    if status == AckStatus.ACCEPTED_WITH_EXCEPTIONS and not cleaned:
        raise ValidationError({"exceptions": ["List at least one exception, or choose “Accept”."]})
    ack = Acknowledgement.objects.create(
        bid=bid,
        fixture_version=version,
        terms_revision=revision,
        status=status,
        exceptions=cleaned,
        by=user,
    )
    from bids.services.scoring import scoring_queue

    # The acceptance-terms criterion reads the acknowledgement: re-score once it is committed.
    transaction.on_commit(lambda: scoring_queue(request=req))
    return ack
