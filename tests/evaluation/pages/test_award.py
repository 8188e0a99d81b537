"""The award panel's scores, and the written justification an award against them needs."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from acceptance.models import Reservation
from bids.choices import RequestStatus
from bids.models import Bid
from bids.services import bid_submit
from engine.formatting import fixed
from evaluation.models import BidScore
from tests.acceptance.burnin.helpers import attach_fixture, two_node_spec
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.conftest import add_bids, score

pytestmark = pytest.mark.django_db

REASON = "The rival can deliver two weeks earlier, which the training plan needs."


def _closed(world: Any) -> Any:
    attach_fixture(world.request, two_node_spec())
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    return world


def _panel(client: Any, world: Any) -> str:
    html = client.get(reverse("bids:request-detail", args=[world.request.pk])).content.decode()
    return html[html.index('id="award-panel"') :]


def _row(panel: str, name: str) -> str:
    row = panel[panel.index(name) :]
    return row[: row.index("</tr>")]


def test_the_panel_says_not_scored_yet_before_any_scoring(world, buyer):
    panel = _panel(buyer.client(), _closed(world))
    assert "not scored yet" in _row(panel, world.rival_bid.provider.name)
    assert 'name="justification"' not in panel


def test_the_panel_shows_rank_total_and_reasons_in_words(world, buyer, rival_provider):
    # The rival resubmits from a region the request does not accept: disqualified.
    Bid.objects.filter(pk=world.rival_bid.pk).update(region="apac", has_unsubmitted_changes=True)
    world.rival_bid.refresh_from_db()
    bid_submit(bid=world.rival_bid, user=rival_provider.user)
    _closed(world)
    score(world.request)
    first = BidScore.objects.get(revision__bid=world.bid, run__stale=False)
    rival = BidScore.objects.get(revision__bid=world.rival_bid, run__stale=False)
    panel = _panel(buyer.client(), world)
    winner = _row(panel, world.bid.provider.name)
    assert "<td>1</td>" in winner and fixed(first.total, places=1) in winner
    loser = _row(panel, world.rival_bid.provider.name)
    assert "disqualified" in loser and "{&#x27;code&#x27;" not in loser and "'code'" not in loser
    assert rival.disqualifications[0]["message"] in loser.replace("&#x27;", "'")
    assert 'name="justification"' in loser and 'name="justification"' not in winner
    assert panel.index(world.bid.provider.name) < panel.index(world.rival_bid.provider.name)
    url = reverse("evaluation:bid-award", args=[world.rival_bid.pk])
    refused = buyer.client().post(url, {"justification": ""}, follow=True).content.decode()
    assert "The current scoring disqualifies this bid: write why you award it" in refused


def test_the_panel_reads_the_same_queries_for_2_bids_and_12(
    world, buyer, django_assert_max_num_queries
):
    client = buyer.client()
    _closed(world)
    score(world.request)
    with django_assert_max_num_queries(1000) as few:
        _panel(client, world)
    add_bids(world.request, 10)
    score(world.request)
    with django_assert_max_num_queries(len(few)):
        panel = _panel(client, world)
    assert panel.count("Award to ") == 12 and "not scored yet" not in panel


def test_the_first_ranked_bid_needs_no_justification(world, buyer):
    _closed(world)
    score(world.request)
    response = buyer.client().post(reverse("evaluation:bid-award", args=[world.bid.pk]))
    reservation = Reservation.objects.get(request=world.request)
    assert response.status_code == 302 and reservation.award_justification is None


@pytest.mark.parametrize("text", ["", "Better for us.", "a reason without an end but long"])
def test_awarding_below_the_top_needs_a_full_sentence(world, buyer, text):
    _closed(world)
    score(world.request)
    url = reverse("evaluation:bid-award", args=[world.rival_bid.pk])
    response = buyer.client().post(url, {"justification": text}, follow=True)
    assert "at least one full sentence" in response.content.decode()
    assert not Reservation.objects.filter(request=world.request).exists()


def test_a_refused_award_keeps_the_justification_typed(world, buyer):
    """GIVEN a justification the award refuses (no full stop) WHEN the request page comes back
    THEN the text is still in that bid's box, once: a reload shows the box empty again."""
    _closed(world)
    score(world.request)
    client = buyer.client()
    typed = "The rival can deliver two weeks earlier and we need that"
    url = reverse("evaluation:bid-award", args=[world.rival_bid.pk])
    html = client.post(url, {"justification": typed}, follow=True).content.decode()
    assert "at least one full sentence" in html
    box = html[html.index(f'id="justification-{world.rival_bid.pk}"') :]
    assert box[box.index(">") + 1 :].startswith(typed + "</textarea>")
    again = _panel(client, world)
    assert typed not in again


def test_awarding_below_the_top_with_a_reason_records_it(world, buyer):
    _closed(world)
    score(world.request)
    url = reverse("evaluation:bid-award", args=[world.rival_bid.pk])
    response = buyer.client().post(url, {"justification": f"  {REASON} "}, follow=True)
    assert "Awarded to" in response.content.decode()
    assert Reservation.objects.get(request=world.request).award_justification == REASON


def test_the_api_names_the_justification_field(world, buyer):
    _closed(world)
    score(world.request)
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/award/"
    refused = client.post(url, {"bid": world.rival_bid.pk}, format="json")
    assert refused.status_code == 400
    why = refused.json()["errors"]["justification"][0]
    assert why.startswith("The current scoring ranks this bid #2, not first: write why you award")
    assert "full sentence" in why
    body = {"bid": world.rival_bid.pk, "justification": REASON}
    accepted = client.post(url, body, format="json")
    assert accepted.status_code == 201 and accepted.json()["award_justification"] == REASON
