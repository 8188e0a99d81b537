"""The comparison page: matrix, reasons, explanations, states, labels, and its query count."""

from __future__ import annotations

import re

import pytest
from django.db import connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from bids.services import bid_submit
from evaluation.models import ScoringRun, ScoringStatus
from evaluation.services import request_set_weights
from tests.evaluation.pages.conftest import add_bids, score
from tests.factories import BidFactory, MembershipFactory


def page(client, req, query: str = "") -> str:
    response = client.get(reverse("evaluation:request-compare", args=[req.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_matrix_shows_each_bid_with_its_derived_numbers_explained(scored, buyer):
    html = page(buyer.client(), scored.request)
    assert "Northwind" in html and "Rival Cloud" in html
    for group in (
        "Price and cost model",
        "Hardware and fabric",
        "SLA and incident response",
        "Acceptance terms",
        "Scores",
    ):
        assert group in html
    # every derived number opens onto its inputs and formula
    assert "sqrt(2 C M)" in html
    assert "1 - C/t - (t/2 + R)/M" in html
    assert "<details>" in html and "Effective price per useful GPU-hour" in html
    assert 'class="best' in html
    assert 'id="compare-data"' in html
    assert "vendor/plotly/plotly.min.js" in html and "cdn" not in html.lower()


def test_each_chart_has_its_figures_as_a_table(scored, buyer):
    """Without sight of the charts, or without JavaScript, the same figures are on the page."""
    html = page(buyer.client(), scored.request)
    charts = html[html.index("<h2>Charts</h2>") :]
    assert charts.count('<div id="chart-') == charts.count('<details class="chart-data">') == 4
    scores = charts[charts.index('id="chart-scores"') :]
    table = scores[: scores.index("</details>")]
    assert "<td>Northwind</td>" in table and "<td>Rival Cloud</td>" in table
    sensitivity = charts[charts.index('id="chart-sensitivity"') :]
    table = sensitivity[: sensitivity.index("</details>")]
    assert re.search(r"<td>Northwind</td><td>\d+\.\d %</td>", table), table


def test_the_default_mtbf_is_named_when_a_bid_declares_none(scored, buyer):
    html = page(buyer.client(), scored.request)
    assert "6,335 node-hours" in html
    assert '<span class="tag">default</span>' in html


def test_a_disqualified_bid_is_set_apart_with_every_reason(scored, buyer):
    bad = BidFactory(request=scored.request, region="us-west", gpu_model="A100")
    # The bid lifecycle lets only a member of the bidding provider submit.
    bid_submit(bid=bad, user=MembershipFactory(organization=bad.provider).user)
    score(scored.request)
    html = page(buyer.client(), scored.request)
    section = html[html.index('id="disqualified"') :].lower()
    assert "region us-west is not among the acceptable regions" in section
    assert "offers a100, the request needs h200" in section
    assert 'class="dq first-dq"' in html  # ranked bids first, then a divider


def test_labels_can_be_anonymised_until_award(scored, buyer):
    html = page(buyer.client(), scored.request, "?labels=anonymous")
    matrix = html[html.index('id="matrix"') :]
    assert "Bid A" in matrix and "Bid B" in matrix
    assert "Northwind" not in html and "Rival Cloud" not in html
    assert "export.xlsx?labels=anonymous" in html


def test_the_verdict_names_the_winner_and_its_robustness(scored, buyer):
    html = page(buyer.client(), scored.request)
    verdict = html[
        html.index('id="verdict"') : html.index("</section>", html.index('id="verdict"'))
    ]
    assert re.search(r"(robust|close call)", verdict)
    assert "random weight draws" in verdict


COST_HEAVY = {
    "effective_cost": 90,
    "fabric_placement": 5,
    "incident_sla": 5,
    "acceptance_terms": 0,
    "delivery_risk": 0,
}


def test_while_rescoring_the_old_numbers_are_labelled_stale(
    scored, buyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):  # the re-score stays queued
        request_set_weights(capacity_request=scored.request, user=buyer.user, weights=COST_HEAVY)
    client = buyer.client()
    html = page(client, scored.request)
    assert "Re-scoring…" in html
    assert "stale" in html and "is-stale" in html
    status = client.get(
        reverse("evaluation:request-compare-status", args=[scored.request.pk])
    ).json()
    assert status["state"] == "pending" and status["status"] == ScoringStatus.QUEUED


def test_a_changed_request_shows_old_scores_as_stale_with_a_rescore_button(scored, buyer):
    scored.request.checkpoint_write_seconds = 600
    scored.request.save()
    html = page(buyer.client(), scored.request)
    assert "changed since the last scoring" in html
    assert "Re-score now" in html and "is-stale" in html


def test_a_failed_run_shows_its_error_and_a_retry_button(
    world, buyer, monkeypatch, django_capture_on_commit_callbacks
):
    from evaluation import services as scoring

    monkeypatch.setattr(scoring, "score_bids", lambda *a, **k: 1 / 0)
    score(world.request)
    client = buyer.client()
    html = page(client, world.request)
    assert "Scoring failed." in html and "ZeroDivisionError" in html
    assert "Retry" in html
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("evaluation:request-compare-rescore", args=[world.request.pk]))
    html = page(client, world.request)
    assert "Scoring failed." not in html
    assert ScoringRun.objects.get(request=world.request).status == ScoringStatus.DONE


def test_an_empty_request_says_so(buyer):
    from tests.factories import CapacityRequestFactory

    req = CapacityRequestFactory(buyer=buyer.org)
    score(req)
    html = page(buyer.client(), req)
    assert "No bid to compare yet." in html


def test_a_request_never_scored_and_without_bids_asks_for_no_rescoring(buyer):
    from tests.factories import CapacityRequestFactory

    req = CapacityRequestFactory(buyer=buyer.org)
    html = page(buyer.client(), req)
    assert "No bid to compare yet." in html
    assert "changed since the last scoring" not in html and "Re-score now" not in html


def _weights_card(html: str) -> str:
    start = html.index('id="weights"')
    return html[start : html.index("</section>", start)]


def test_the_comparison_shows_the_current_weights_and_the_way_to_change_them(
    scored, buyer, django_capture_on_commit_callbacks
):
    """The weights are read on the comparison and changed on their own page; while the new
    weights re-score, the card already says what was asked for."""
    client = buyer.client()
    weights_url = reverse("evaluation:request-weights", args=[scored.request.pk])
    with django_capture_on_commit_callbacks(execute=False):  # the re-score stays queued
        request_set_weights(capacity_request=scored.request, user=buyer.user, weights=COST_HEAVY)
    card = _weights_card(page(client, scored.request))
    assert "<dt>Effective cost</dt><dd>90</dd>" in card
    assert "<dt>Delivery risk</dt><dd>0</dd>" in card
    assert "<input" not in card and "<form" not in card
    assert f'href="{weights_url}"' in card and "Change the weights" in card
    anonymous = _weights_card(page(client, scored.request, "?labels=anonymous"))
    assert f'href="{weights_url}?labels=anonymous"' in anonymous

    form = client.get(weights_url).content.decode()
    assert 'name="effective_cost" value="90"' in form
    assert 'name="incident_sla" value="5"' in form


def test_the_weights_page_goes_back_to_the_comparison_as_the_buyer_left_it(
    scored, buyer, django_capture_on_commit_callbacks
):
    client = buyer.client()
    url = reverse("evaluation:request-weights", args=[scored.request.pk]) + "?labels=anonymous"
    compare = reverse("evaluation:request-compare", args=[scored.request.pk])
    assert f'href="{compare}?labels=anonymous"' in client.get(url).content.decode()
    weights = dict.fromkeys(
        ("effective_cost", "fabric_placement", "incident_sla", "acceptance_terms"), "10"
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {**weights, "delivery_risk": "60"})
    assert response["Location"] == f"{compare}?labels=anonymous#scoring-status"
    assert "<dt>Delivery risk</dt><dd>60</dd>" in _weights_card(page(client, scored.request))


def test_the_weights_form_shows_each_error_in_place(scored, buyer):
    url = reverse("evaluation:request-weights", args=[scored.request.pk])
    response = buyer.client().post(
        url,
        {
            "effective_cost": "-3",
            "fabric_placement": "x",
            "incident_sla": "20",
            "acceptance_terms": "10",
            "delivery_risk": "10",
        },
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="id_effective_cost_error">Must not be negative, got -3.<' in html
    assert 'id="id_fabric_placement_error">Must be a number' in html
    # What was typed stays, to be corrected rather than typed again.
    assert 'name="effective_cost" value="-3"' in html
    assert 'name="incident_sla" value="20"' in html


def test_huge_weights_are_refused_on_the_form_not_left_scoring_for_ever(scored, buyer):
    url = reverse("evaluation:request-weights", args=[scored.request.pk])
    others = dict.fromkeys(("incident_sla", "acceptance_terms", "delivery_risk"), "0")
    response = buyer.client().post(
        url, {"effective_cost": "1e308", "fabric_placement": "1e308", **others}
    )
    html = response.content.decode()
    assert 'id="id_effective_cost_error">Must be at most 1,000,000' in html
    scored.request.refresh_from_db()
    assert scored.request.weights.get("effective_cost") != 1e308


def test_saving_weights_redirects_to_the_comparison(
    scored, buyer, django_capture_on_commit_callbacks
):
    url = reverse("evaluation:request-weights", args=[scored.request.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = buyer.client().post(
            url,
            {
                "effective_cost": "10",
                "fabric_placement": "10",
                "incident_sla": "10",
                "acceptance_terms": "10",
                "delivery_risk": "60",
            },
        )
    assert response.status_code == 302
    assert response["Location"].startswith(
        reverse("evaluation:request-compare", args=[scored.request.pk])
    )
    current = ScoringRun.objects.get(request=scored.request, stale=False)
    assert current.status == ScoringStatus.DONE and current.weights["delivery_risk"] == 60


def _count_queries(client, req) -> int:
    reset_queries()
    with CaptureQueriesContext(connection) as ctx:
        page(client, req)
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_the_page_costs_the_same_queries_for_2_and_200_bids(world, buyer):
    """The first view of a run builds its presentation, later views read it back: each costs
    the same number of queries for 2 bids as for 200, and reading back costs fewer."""
    client = buyer.client()
    client.get(reverse("bids:request-detail", args=[world.request.pk]))  # warm the session
    score(world.request)
    small_first = _count_queries(client, world.request)
    small = _count_queries(client, world.request)

    add_bids(world.request, 198)
    run = score(world.request)
    assert run.bid_count == 200
    large_first = _count_queries(client, world.request)
    large = _count_queries(client, world.request)
    assert small > 0
    assert large_first == small_first, f"{small_first} queries for 2 bids, {large_first} for 200"
    assert large == small, f"{small} queries for 2 bids, {large} for 200 (built)"
    assert small < small_first


def test_a_new_run_is_presented_afresh(scored, buyer, provider):
    """A run's presentation is kept once built; the next run (a revised price) has its own."""
    from decimal import Decimal

    from bids.services import bid_save_draft

    client = buyer.client()
    assert "2.400" in page(client, scored.request)
    bid_save_draft(
        bid=scored.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("1.875")}
    )
    bid_submit(bid=scored.bid, user=provider.user)
    score(scored.request)
    html = page(client, scored.request)
    assert "1.875" in html


def test_the_matrix_prints_the_same_read_back_and_each_labelling_has_its_own(scored, buyer):
    def matrix(html: str) -> str:
        return html.split('<table class="table matrix">')[1].split("</table>")[0]

    client = buyer.client()
    first = matrix(page(client, scored.request))
    assert matrix(page(client, scored.request)) == first
    anonymous = matrix(page(client, scored.request, "?labels=anonymous"))
    assert "Northwind" in first and "Northwind" not in anonymous
    assert matrix(page(client, scored.request)) == first


def test_the_matrix_writes_a_date_as_the_other_pages_do_and_the_csv_keeps_it_sortable(
    scored, buyer
):
    """'Available from' reads '1 Mar 2027' on the page, as the bid's own page prints it; the
    CSV, read by spreadsheets, keeps the ISO date."""
    start = scored.bid.available_start
    client = buyer.client()
    html = page(client, scored.request)
    row = html.split('<tr data-row="available">')[1].split("</tr>")[0]
    assert f"<td>{start.day} {start:%b %Y}</td>" in row and start.isoformat() not in row

    csv_text = client.get(
        reverse("evaluation:request-compare-csv", args=[scored.request.pk])
    ).content.decode("utf-8-sig")
    available = next(line for line in csv_text.splitlines() if ",Available from," in line)
    assert available.endswith(f",{start.isoformat()},{start.isoformat()}")
