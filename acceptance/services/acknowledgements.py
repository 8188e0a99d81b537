"""A provider acknowledges, per bid, the request's current fixture version and terms."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from acceptance.models import Acknowledgement, AckStatus, Fixture, FixtureVersion
from acceptance.selectors.fixtures import exception_field_choices
from acceptance.selectors.lot_parts import lot_acknowledgements_missing
from bids.audit import record_bid
from bids.models import Bid, Lot
from bids.signals import scoring_inputs_changed_on_commit
from contracts.models import HandoffTerms, HandoffTermsRevision
from core.errors import ServiceError

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


OWNER_NAME_MISSING = "Name your incident owner: the person the buyer calls when a run fails."
OWNER_CONTACT_MISSING = "Give your incident owner's contact (e-mail, phone or on-call alias)."
OWNER_LIMITS = {"provider_owner_name": 120, "provider_owner_contact": 200}


def _provider_owner(
    *, terms: HandoffTerms | None, user: User, name: str | None, contact: str | None
) -> tuple[str, str]:
    """Who owns incidents on the provider's side: what was given, else the terms' names.

    None (a caller without an owner form) falls back to the user acknowledging; an empty
    string (the form) does not, so the provider names someone on purpose.
    """
    given_name, given_contact = (name or "").strip(), (contact or "").strip()
    if given_name or given_contact:
        return given_name, given_contact
    if terms is not None and terms.provider_owner_name.strip():
        return terms.provider_owner_name.strip(), terms.provider_owner_contact.strip()
    if name is None and contact is None:
        return (user.get_full_name().strip() or user.get_username()), (user.email or "")
    return "", ""


def _owner_errors(*, name: str, contact: str, required: bool) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for field, value, missing in (
        ("provider_owner_name", name, OWNER_NAME_MISSING),
        ("provider_owner_contact", contact, OWNER_CONTACT_MISSING),
    ):
        limit = OWNER_LIMITS[field]
        if required and not value:
            errors[field] = [missing]
        elif len(value) > limit:
            errors[field] = [f"Keep it to {limit} characters; this has {len(value)}."]
    return errors


@transaction.atomic
def acknowledgement_submit(
    *,
    bid: Bid,
    user: User,
    status: str,
    exceptions: list[dict[str, Any]] | None = None,
    provider_owner_name: str | None = None,
    provider_owner_contact: str | None = None,
    lot: Lot | None = None,
) -> Acknowledgement:
    """Record the provider's answer to the current fixture version and terms revision: the
    request's, or with `lot` that lot's own (a lot that shares the request's has nothing of its
    own to acknowledge).

    With handoff terms, the acknowledgement names the provider's incident owner and contact:
    as given, or as the terms already name them (see `_provider_owner`).
    """
    req = bid.request
    if req.closed_to_bids_reason() is not None:
        raise ServiceError("This request no longer takes bids, so nothing can be acknowledged.")
    if bid.out_of_final_round:
        raise ServiceError("Your bid is not in the final round, so nothing can be acknowledged.")
    if not req.invitations.filter(provider_id=bid.provider_id).exists():
        raise ServiceError("Your organisation is not invited to bid on this request.")
    if lot is not None and lot.request_id != req.pk:
        raise ServiceError(f"Lot {lot.number} is not a lot of this request.")
    owner = {"lot": lot} if lot is not None else {"request": req}
    fixture = Fixture.objects.filter(**owner).first()
    version = (
        FixtureVersion.objects.filter(fixture=fixture, number=fixture.current_number).first()
        if fixture is not None
        else None
    )
    terms = HandoffTerms.objects.filter(**owner).first()
    revision = (
        HandoffTermsRevision.objects.filter(terms=terms, number=terms.version).first()
        if terms is not None
        else None
    )
    if version is None and revision is None:
        raise ServiceError(
            f"Lot {lot.number} shares the request's fixture and terms; acknowledge those."
            if lot is not None
            else "The buyer has attached neither a fixture nor handoff terms; nothing to "
            "acknowledge."
        )
    if status not in AckStatus.values:
        raise ValidationError({"status": ["Choose “Accept” or “Accept with exceptions”."]})
    allowed = {value for value, _label in exception_field_choices(version=version, terms=terms)}
    cleaned, problems = _clean_exceptions(list(exceptions or []), allowed)
    owner_name, owner_contact = _provider_owner(
        terms=terms, user=user, name=provider_owner_name, contact=provider_owner_contact
    )
    errors = _owner_errors(name=owner_name, contact=owner_contact, required=terms is not None)
    if problems:
        errors["exceptions"] = problems
    if errors:
        raise ValidationError(errors)
    if status == AckStatus.ACCEPTED and cleaned:
        raise ValidationError(
            {"status": ["You listed exceptions: choose “Accept with exceptions”, or remove them."]}
        )
    if status == AckStatus.ACCEPTED_WITH_EXCEPTIONS and not cleaned:
        raise ValidationError({"exceptions": ["List at least one exception, or choose “Accept”."]})
    ack = Acknowledgement.objects.create(
        bid=bid,
        lot=lot,
        fixture_version=version,
        terms_revision=revision,
        status=status,
        exceptions=cleaned,
        provider_owner_name=owner_name,
        provider_owner_contact=owner_contact,
        by=user,
    )
    # A bid's entry: hidden from a sealed request's buyer until the bids open, like the bid.
    record_bid(
        bid=bid,
        action="bid.acknowledge",
        user=user,
        after={
            **({"lot": lot.number} if lot is not None else {}),
            "status": status,
            "fixture_version": version.number if version is not None else None,
            "terms_revision": revision.number if revision is not None else None,
            "exceptions": len(cleaned),
        },
    )
    # The acceptance-terms criterion reads the acknowledgement: re-score once it is committed.
    scoring_inputs_changed_on_commit(capacity_request=req)
    return ack


def lot_acknowledgements_required(*, bid: Bid, **_signal: Any) -> None:
    """`bid_submitting` receiver: a bid offering on a lot with its own fixture or terms is
    submitted only once those stand acknowledged as they are now."""
    if problems := lot_acknowledgements_missing(bid=bid):
        raise ValidationError({"lot_offers": problems})
