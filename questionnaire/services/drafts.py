"""A bid draft written in one call (terms and answers together), as the API needs it.

No rule lives here. The terms go through `bids.services.bid_save_draft` (the bid page's path),
the answers through `answers_save` (the questionnaire page's path). This module only joins the
two saves in one transaction and names answer errors `answers.<question key>`. A submit is
`bid_submit` itself: the questionnaire's receiver names its answers so already.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from bids.models import Bid
from bids.services import bid_save_draft
from core.lifecycle import MoveRefused
from questionnaire.services.answers import ANSWERS, answers_save


def _keyed(exc: ValidationError, prefix: str = "") -> dict[str, list[str]]:
    if hasattr(exc, "error_dict"):
        return {f"{prefix}{k}": list(v) for k, v in exc.message_dict.items()}
    return {prefix.rstrip(".") or "__all__": list(exc.messages)}


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
    except MoveRefused:
        raise  # refused by the bid's table (e.g. bidding closed): 403/409, not a field error
    except ValidationError as exc:
        errors.update(_keyed(exc))
    if answers is not None and not errors.get("__all__"):
        try:
            answers_save(bid=bid, user=user, raw=answers)
        except ValidationError as exc:
            errors.update(_keyed(exc, f"{ANSWERS}."))
    if errors:
        transaction.set_rollback(True)
        raise ValidationError(errors)
    bid.refresh_from_db()
    return bid
