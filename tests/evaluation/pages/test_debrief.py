"""After the award every bidder hears the outcome, each about its own bid: the winner's members
that they won, each loser's members a debrief with their own rank, weighted total and scores per
criterion, never another bid's provider or price; nobody else hears anything."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.urls import reverse

from bids.models import Bid
from bids.services import bid_submit
from engine.formatting import fixed
from evaluation.comparison import tenths
from evaluation.debrief import debrief_of
from evaluation.models import BidScore
from notices.choices import Event
from notices.models import Notice
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import score
from tests.evaluation.pages.test_award import REASON, _closed

pytestmark = pytest.mark.django_db


def _mail(address: str) -> Any:
    (message,) = [m for m in mail.outbox if m.to == [address]]
    return message


def _own_scores(bid: Bid) -> BidScore:
    return BidScore.objects.get(revision__bid=bid, run__stale=False)


def test_a_justified_award_of_the_second_bid_debriefs_the_first(
    world, buyer, provider, rival_provider, outsider, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://bids.example.com"
    _closed(world)
    score(world.request)
    mine = _own_scores(world.bid)
    assert mine.rank == 1
    url = reverse("evaluation:bid-award", args=[world.rival_bid.pk])
    with django_capture_on_commit_callbacks(execute=True):
        buyer.client().post(url, {"justification": REASON})

    won = _mail(rival_provider.user.email)
    assert won.subject == f"[Clusterbid] You won “{world.request.title}”"
    assert "https://bids.example.com/reservations/" in won.body

    lost = _mail(provider.user.email)
    assert lost.subject == f"[Clusterbid] “{world.request.title}” was awarded to another bid"
    assert "ranked 1 of 2 qualified bids" in lost.body
    assert f"weighted total of {fixed(mine.total, places=1)}" in lost.body
    for criterion in mine.criteria:
        assert f": {fixed(criterion['score'], places=1)} (weight" in lost.body
    assert f"https://bids.example.com/bids/{world.bid.pk}/" in lost.body
    # Nothing of the winning bid: not its provider, not its price, not a rationale quoting it.
    assert "Rival Cloud" not in lost.body + lost.subject
    assert "2.900" not in lost.body and "2.9 " not in lost.body and "vs best" not in lost.body
    assert REASON not in lost.body
    # The buyer's side and outsiders hear nothing of it.
    assert [
        m.to[0] for m in mail.outbox if m.to[0] in (buyer.user.email, outsider.user.email)
    ] == []
    notice = Notice.objects.get(recipient=provider.user, event=Event.LOSS)
    assert notice.organization == provider.org


def test_the_api_award_debriefs_a_disqualified_loser_in_words(
    world, buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    Bid.objects.filter(pk=world.rival_bid.pk).update(region="apac", has_unsubmitted_changes=True)
    world.rival_bid.refresh_from_db()
    bid_submit(bid=world.rival_bid, user=rival_provider.user)
    _closed(world)
    score(world.request)
    body = {"bid": world.bid.pk}
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(buyer.user).post(
            f"/api/v1/requests/{world.request.pk}/award/", body, format="json"
        )
    assert response.status_code == 201
    lost = Notice.objects.get(recipient=rival_provider.user, event=Event.LOSS)
    reason = _own_scores(world.rival_bid).disqualifications[0]["message"]
    assert f"Scoring disqualified your bid: {reason}" in lost.body
    assert "Northwind" not in lost.body and "2.400" not in lost.body
    assert Notice.objects.get(recipient=provider.user, event=Event.AWARD)
    assert "ranked 1 of 1 qualified bid," in _mail(provider.user.email).body


def test_without_current_scores_the_debrief_says_so(world, buyer, provider, rival_provider):
    _closed(world)
    buyer.client().post(reverse("evaluation:bid-award", args=[world.bid.pk]))
    lost = Notice.objects.get(recipient=rival_provider.user, event=Event.LOSS)
    assert "no current scores" in lost.body


def test_the_debrief_rounds_a_total_as_the_award_panel_and_the_comparison_do():
    """69.05 is stored as a float a hair under 69.05: the buyer's pages print it 69.1, and so
    does the provider's debrief, never 69.0."""
    score = BidScore(total=69.05, rank=2, qualified=True, criteria=[], weights={})
    assert "weighted total of 69.1 out of 100" in debrief_of(score, ranked=2).text()
    assert tenths(69.05) == ("69.1", 69.1)
