"""A draft with three things to fix before it submits, each found by a different rule: a term
(no region), a lot with its own fixture not yet acknowledged, a required answer missing."""

from __future__ import annotations

from typing import Any

from acceptance.services.fixtures import fixture_from_template, lot_fixture_own
from bids.choices import RequestStatus
from bids.models import Bid
from bids.services import bid_save_draft
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from questionnaire import selectors, services
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory, LotFactory
from tests.questionnaire.conftest import full_answers

REGION_MISSING = "Choose the region the capacity sits in."
LOT_UNACKNOWLEDGED = (
    "Lot 2 has its own fixture: acknowledge them on the bid's page before submitting."
)
OWNER_MISSING = "Required answer missing: Responsibility matrix › Detect: owner"
MISSING_ANSWER = "detect.owner"


def three_problem_draft(buyer: Any, provider: Any) -> Bid:
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, sealed=False, nodes=4
    )
    LotFactory(request=req, number=1, name="Pre-training", nodes=2)
    lot = LotFactory(request=req, number=2, name="Inference", nodes=2)
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    lot_fixture_own(lot=lot, user=buyer.user)
    services.question_set_attach_default(capacity_request=req, user=buyer.user)
    req.status = RequestStatus.OPEN
    req.save(update_fields=["status"])
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    offers = [{"lot": 2, "price_per_gpu_hour": "2.40", "nodes": 2}]
    bid_save_draft(bid=bid, user=provider.user, data={"lot_offers": offers, "region": ""})
    answers = full_answers(selectors.current_question_set(capacity_request=req))
    del answers[MISSING_ANSWER]
    services.answers_save(bid=bid, user=provider.user, raw=answers)
    bid.refresh_from_db()
    return bid
