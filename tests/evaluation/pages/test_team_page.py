"""The member's own weights and ratings, on a page of their own; the comparison page shows
everyone's rankings and links there."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.choices import RequestStatus
from evaluation.models import EvaluatorView
from evaluation.views_team import FORM_LEADING_BIDS
from tests.evaluation.pages.conftest import add_bids, score
from tests.evaluation.pages.test_team_evaluation import compare, cost_only, risk_first, section

pytestmark = pytest.mark.django_db


def url(world: Any, query: str = "") -> str:
    return reverse("evaluation:request-team-view", args=[world.request.pk]) + query


def test_the_member_opens_their_page_with_the_view_they_saved(scored, buyer):
    client = buyer.client()
    assert client.post(url(scored), risk_first(scored)).status_code == 302
    response = client.get(url(scored))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Your view" in html and "(saved " in html
    assert 'id="team-form"' in html and f'action="{url(scored)}"' in html
    assert re.search(r'<input [^>]*name="judged_delivery_risk" value="80"', html)
    assert '<option value="5" selected>5</option>' in html  # the rival's rating
    assert "Racks already installed." in html
    compare_url = reverse("evaluation:request-compare", args=[scored.request.pk])
    assert f'href="{compare_url}#team-evaluation"' in html


def test_a_refused_view_stays_on_the_page_with_what_was_typed(scored, buyer):
    data = {**risk_first(scored), "effective_cost": "-5"}
    response = buyer.client().post(url(scored), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "<h1>Your view" in html and 'id="matrix"' not in html
    assert "Must not be negative, got -5." in html and "-5.0" not in html
    assert 'value="-5"' in html and "No spare nodes on site." in html
    assert not EvaluatorView.objects.exists()


def test_anonymised_labels_carry_through_the_page_and_back(scored, buyer):
    client = buyer.client()
    html = client.get(url(scored, "?labels=anonymous")).content.decode()
    assert "Bid A" in html and "Northwind" not in html and "Rival Cloud" not in html
    assert f'action="{url(scored, "?labels=anonymous")}"' in html
    response = client.post(url(scored, "?labels=anonymous"), cost_only())
    compare_url = reverse("evaluation:request-compare", args=[scored.request.pk])
    assert response["Location"] == compare_url + "?labels=anonymous#team-evaluation"


def test_rating_every_bid_keeps_the_bids_anonymised(scored, buyer):
    """Past the leading bids, the 'rate every qualified bid' link of an anonymised page opens
    the longer form still anonymised."""
    add_bids(scored.request, 10)
    score(scored.request)
    client = buyer.client()
    html = client.get(url(scored, "?labels=anonymous")).content.decode()
    assert '<a href="?labels=anonymous&amp;rate=all">Rate every qualified bid</a>' in html
    every = client.get(url(scored, "?labels=anonymous&rate=all")).content.decode()
    listed = len(set(re.findall(r'name="judged_delivery_risk_(\d+)"', every)))
    assert "team-form-more" not in every and listed > FORM_LEADING_BIDS
    assert "Northwind" not in every and "Bulk provider" not in every


@pytest.mark.parametrize("role", ["provider", "rival_provider", "outsider"])
def test_anyone_outside_the_buyers_team_finds_no_page(scored, role, request):
    client = request.getfixturevalue(role).client()
    assert client.get(url(scored)).status_code == 404
    assert client.post(url(scored), cost_only()).status_code == 404
    assert not EvaluatorView.objects.exists()


def test_a_member_who_may_not_evaluate_is_told_why_and_given_no_form(scored, buyer):
    scored.request.status = RequestStatus.CANCELLED
    scored.request.save()
    html = buyer.client().get(url(scored)).content.decode()
    assert 'id="team-blocker"' in html and 'id="team-form"' not in html
    team = section(compare(buyer.client(), scored))
    assert 'id="team-view-link"' not in team


def test_the_comparison_page_shows_no_team_form_but_links_to_the_page(scored, buyer):
    client = buyer.client()
    team = section(compare(client, scored))
    team = team[: team.index("</section>")]
    for widget in ("<form", "<select", "<textarea", "<input", 'name="judged_'):
        assert widget not in team
    assert f'id="team-view-link" href="{url(scored)}"' in team
    assert "Set your weights and ratings" in team and "not set yet" in team
    client.post(url(scored), cost_only())
    team = section(compare(client, scored))
    assert "(saved " in team[: team.index("</section>")]
    anonymised = section(compare(client, scored, "?labels=anonymous"))
    assert f'href="{url(scored, "?labels=anonymous")}"' in anonymised


def _queries(client: Any, address: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(address).status_code == 200
    return len(ctx.captured_queries)


def test_neither_page_reads_more_queries_for_more_bids(scored, buyer, buyer_colleague):
    client = buyer.client()
    client.post(url(scored), risk_first(scored))
    buyer_colleague.client().post(url(scored), cost_only())
    compare_url = reverse("evaluation:request-compare", args=[scored.request.pk])
    _queries(client, compare_url)  # warm the session and build the presentation
    few = (_queries(client, compare_url), _queries(client, url(scored, "?rate=all")))
    add_bids(scored.request, 12)
    score(scored.request)
    _queries(client, compare_url)  # the new run's presentation is built once, then read back
    many = (_queries(client, compare_url), _queries(client, url(scored, "?rate=all")))
    assert many[0] <= few[0], f"comparison: {few[0]} queries for 2 bids, {many[0]} for 14"
    assert many[1] <= few[1], f"your view: {few[1]} queries for 2 bids, {many[1]} for 14"


def test_with_no_qualified_bid_the_page_says_there_is_none_to_rate(scored, buyer):
    scored.request.acceptable_regions = ["apac"]  # every bid is in the EU: all disqualified
    scored.request.save(update_fields=["acceptable_regions"])
    score(scored.request)
    html = buyer.client().get(url(scored)).content.decode()
    assert 'id="team-form"' in html and "<select" not in html
    assert "No bid qualifies on the current scores, so there is none to rate yet" in html
