"""The questionnaire's part in the bid lifecycle (connected in `QuestionnaireConfig.ready`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from bids.models import Bid
from core.errors import refusal_add
from questionnaire.services import answers_for_submit, require_conflicts_settled
from questionnaire.services.answers import AnswersInvalid, answers_named


def freeze_answers(sender: type[Bid], *, bid: Bid, **kwargs: Any) -> dict[str, Any]:
    """Refuse a submit that lacks a required answer or states one fact with two values left
    unsettled, naming both at once (an answer as `answers.<question key>`, beside the bid's own
    fields); freeze the answers with the revision."""
    errors: dict[str, list[str]] = {}
    frozen: dict[str, Any] = {}
    try:
        frozen = answers_for_submit(bid=bid)
    except AnswersInvalid as exc:
        errors |= answers_named(exc.message_dict)
    try:
        require_conflicts_settled(bid=bid)
    except ValidationError as exc:
        refusal_add(errors, exc)
    if errors:
        raise ValidationError(errors)
    return {"questionnaire": frozen}
