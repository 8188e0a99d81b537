"""`POST /bids/{id}/submit/`: one refusal names every problem, each under its own name, and the
draft stays as it was."""

from __future__ import annotations

import pytest

from bids.choices import BidStatus
from tests.api.v1.conftest import token_client
from tests.bids.submit_helpers import (
    LOT_UNACKNOWLEDGED,
    OWNER_MISSING,
    REGION_MISSING,
    three_problem_draft,
)

pytestmark = pytest.mark.django_db


def test_one_submit_answers_the_term_the_lot_and_the_answer_at_once(buyer, provider):
    draft = three_problem_draft(buyer, provider)
    api = token_client(provider.user)
    refused = api.post(f"/api/v1/bids/{draft.pk}/submit/")
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": "Check the fields named in errors.",
        "errors": {
            "region": [REGION_MISSING],
            "lot_offers": [LOT_UNACKNOWLEDGED],
            "answers.detect.owner": [OWNER_MISSING],
        },
    }
    draft.refresh_from_db()
    assert draft.status == BidStatus.DRAFT and not draft.revisions.exists()
