"""The questionnaire's part in the bid lifecycle (connected in `QuestionnaireConfig.ready`)."""

from __future__ import annotations

from typing import Any

from bids.models import Bid
from questionnaire.services import answers_for_submit, require_conflicts_settled


def freeze_answers(sender: type[Bid], *, bid: Bid, **kwargs: Any) -> dict[str, Any]:
    """Refuse a submit that lacks a required answer or states one fact with two values left
    unsettled; freeze the answers with the revision."""
    frozen = answers_for_submit(bid=bid)
    require_conflicts_settled(bid=bid)
    return {"questionnaire": frozen}
