"""A bid draft written in one call (terms and answers together), as the API needs it.

Errors come back keyed by field: bid terms by their name, answers as `answers.<question key>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from bids.models import Bid, BidRevision
from bids.services import bid_save_draft, bid_submit
from questionnaire.models import BidQuestionnaire
from questionnaire.selectors import current_question_set, question_specs
from questionnaire.services.answers import answers_save, clean_answers
from questionnaire.snapshot import missing_required

ANSWERS = "answers"


def _keyed(exc: ValidationError, prefix: str = "") -> dict[str, list[str]]:
    if hasattr(exc, "error_dict"):
        return {f"{prefix}{k}": list(v) for k, v in exc.message_dict.items()}
    return {prefix.rstrip(".") or "__all__": list(exc.messages)}


def _unknown_keys(bid: Bid, answers: Mapping[str, Any]) -> dict[str, list[str]]:
    """A key the questionnaire does not ask is a typo to report, not an answer to drop."""
    qs = current_question_set(request=bid.request)
    if qs is None:
        return {}  # answers_save says that no questionnaire is attached
    known = {spec.key for spec in question_specs(question_set=qs)}
    return {
        f"{ANSWERS}.{key}": [f"This request's questionnaire asks no question '{key}'."]
        for key in answers
        if key not in known
    }


@transaction.atomic
def bid_draft_save(
    *, bid: Bid, user: User, terms: Mapping[str, Any], answers: Mapping[str, Any] | None
) -> Bid:
    """Save the terms given and, when `answers` is given, replace the draft answers.

    Both are validated before anything is kept; one combined, field-keyed error otherwise.
    """
    errors: dict[str, list[str]] = {}
    try:
        if terms or answers is None:
            bid_save_draft(bid=bid, user=user, data=dict(terms))
    except ValidationError as exc:
        errors.update(_keyed(exc))
    if answers is not None and not errors.get("__all__"):
        errors.update(_unknown_keys(bid, answers))
        try:
            answers_save(bid=bid, user=user, raw=answers)
        except ValidationError as exc:
            errors.update(_keyed(exc, f"{ANSWERS}."))
    if errors:
        transaction.set_rollback(True)
        raise ValidationError(errors)
    bid.refresh_from_db()
    return bid


def answers_submit_errors(*, bid: Bid) -> dict[str, list[str]]:
    """Why the draft answers cannot be frozen, keyed `answers.<question key>` (empty: none)."""
    qs = current_question_set(request=bid.request)
    if qs is None:
        return {}
    specs = question_specs(question_set=qs)
    row = BidQuestionnaire.objects.filter(bid=bid).first()
    values, errors = clean_answers(specs, row.answers if row else {})
    out = {f"{ANSWERS}.{key}": list(messages) for key, messages in errors.items()}
    key_of = {s.label: s.key for s in specs}
    for label in missing_required(specs, values):
        out.setdefault(f"{ANSWERS}.{key_of[label]}", []).append(f"Required answer missing: {label}")
    return out


def bid_draft_submit(*, bid: Bid, user: User) -> BidRevision:
    """`bid_submit`, with a missing or stale answer named by its question key."""
    try:
        return bid_submit(bid=bid, user=user)
    except ValidationError as exc:
        if hasattr(exc, "error_dict"):
            raise
        keyed = answers_submit_errors(bid=bid)
        if keyed:
            raise ValidationError(keyed) from exc
        raise
