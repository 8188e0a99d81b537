"""The comparison re-scores by itself after a close or a reopen: nobody has to press
'Re-score now' to see current scores."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from bids import services
from evaluation.comparison import CURRENT, comparison_state
from tests.evaluation.pages.conftest import score
from tests.evaluation.pages.test_track_record import media_root, past_reservation

__all__ = ["media_root"]

pytestmark = pytest.mark.django_db


def test_reopen_revise_close_leaves_the_comparison_current(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    """GIVEN a provider with a track record, which scoring reads as of the close (or today
    while open) WHEN the buyer reopens, the provider revises and the buyer closes again THEN the
    comparison is current without anyone pressing 'Re-score now'."""
    past_reservation(buyer, provider, days=10, title="Earlier work")
    req = world.request
    with django_capture_on_commit_callbacks(execute=True):
        services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    assert comparison_state(capacity_request=req)[0] == CURRENT
    score(req)
    assert comparison_state(capacity_request=req)[0] == CURRENT
    with django_capture_on_commit_callbacks(execute=True):
        services.request_reopen(
            capacity_request=req,
            user=buyer.user,
            bid_deadline=timezone.now() + timedelta(days=3),
            confirmed=True,
        )
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.1")}
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.bid_submit(bid=world.bid, user=provider.user)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    req.refresh_from_db()
    state, run = comparison_state(capacity_request=req)
    assert state == CURRENT, state
    assert run is not None and run.bid_count == 2
