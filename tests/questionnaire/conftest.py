"""A world whose request carries the default questionnaire, and answers that satisfy it."""

from __future__ import annotations

from typing import Any

import pytest

from bids.models import Bid, CapacityRequest
from questionnaire import selectors, services
from questionnaire.answer_types import DURATION, ENUM, INTEGER, MULTI, TEXT, YESNO, QuestionSpec
from questionnaire.models import QuestionSet
from tests.conftest import Role
from tests.factories import BidFactory


def valid_raw(spec: QuestionSpec) -> Any:
    if spec.answer_type == DURATION:
        return "30 min"
    if spec.answer_type == ENUM:
        return spec.choices[0][0]
    if spec.answer_type == MULTI:
        return [spec.choices[0][0]]
    if spec.answer_type == YESNO:
        return {"value": "yes", "comment": ""}
    if spec.answer_type == INTEGER:
        return "2"
    assert spec.answer_type == TEXT
    return "Named on-call engineer"


def full_answers(question_set: QuestionSet, *, spares: int = 0) -> dict[str, Any]:
    """A valid answer to every question the questionnaire asks (bound ones are the bid's),
    agreeing with a bid of `spares` spare nodes: a conflict would block its submit."""
    raw = {
        s.key: valid_raw(s)
        for s in selectors.question_specs(question_set=question_set)
        if not s.bound_to
    }
    if "spares.reservation" in raw:
        raw["spares.reservation"] = "reserved" if spares else "none"
    return raw


@pytest.fixture
def asked_request(world: Any, buyer: Role) -> CapacityRequest:
    """The world's request with the default questionnaire attached (its bids have revision 1)."""
    services.question_set_attach_default(capacity_request=world.request, user=buyer.user)
    return world.request


@pytest.fixture
def draft(asked_request: CapacityRequest, provider: Role) -> Bid:
    """A fresh draft on a second request that asks the default questionnaire."""
    from tests.factories import CapacityRequestFactory

    req = CapacityRequestFactory(buyer=asked_request.buyer)
    services.question_set_attach_default(capacity_request=req, user=None)
    return BidFactory(request=req, provider=provider.org)
