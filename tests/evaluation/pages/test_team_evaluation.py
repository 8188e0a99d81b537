"""Team evaluation: each buyer member's own weights and ratings, set on a page of their own; the
rankings they give, the consensus and the disagreement on the comparison page; and the view an
award followed."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from audit.selectors import visible_to
from bids.choices import RequestStatus
from evaluation.comparison import comparison_for_buyer
from evaluation.models import AwardBasis, EvaluatorView
from evaluation.views_team import FORM_LEADING_BIDS
from orgs.models import Membership
from tests.acceptance.burnin.helpers import attach_fixture, two_node_spec
from tests.evaluation.pages.conftest import add_bids, score

pytestmark = pytest.mark.django_db

REASON = "The delivery risk of the cheaper bid is too high for the launch date we promised."


def cost_only() -> dict[str, str]:
    return {
        "effective_cost": "100",
        "fabric_placement": "0",
        "incident_sla": "0",
        "acceptance_terms": "0",
        "delivery_risk": "0",
        "judged_acceptance_terms": "",
        "judged_delivery_risk": "",
    }


def risk_first(world: Any) -> dict[str, str]:
    """Weighs the delivery risk as judged, and rates the rival far above the cheaper bid."""
    return {
        **cost_only(),
        "effective_cost": "20",
        "judged_delivery_risk": "80",
        f"judged_delivery_risk_{world.bid.pk}": "1",
        f"judged_delivery_risk_{world.bid.pk}_comment": "No spare nodes on site.",
        f"judged_delivery_risk_{world.rival_bid.pk}": "5",
        f"judged_delivery_risk_{world.rival_bid.pk}_comment": "Racks already installed.",
    }


def save(client: Any, world: Any, data: dict[str, str]) -> Any:
    return client.post(reverse("evaluation:request-team-view", args=[world.request.pk]), data)


def compare(client: Any, world: Any, query: str = "") -> str:
    html = client.get(reverse("evaluation:request-compare", args=[world.request.pk]) + query)
    return html.content.decode()


def team_page(client: Any, world: Any, query: str = "") -> str:
    response = client.get(reverse("evaluation:request-team-view", args=[world.request.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def section(html: str) -> str:
    return html[html.index('id="team-evaluation"') :]


def form(html: str) -> str:
    return html[html.index('id="team-form"') : html.index("</form>", html.index('id="team-form"'))]


def test_two_evaluators_who_pick_different_winners_are_both_shown_with_the_disagreement(
    scored, buyer, buyer_colleague
):
    assert save(buyer.client(), scored, cost_only()).status_code == 302
    assert save(buyer_colleague.client(), scored, risk_first(scored)).status_code == 302
    html = section(compare(buyer.client(), scored))
    assert (
        "alice ranks Northwind first, bob ranks Rival Cloud first; consensus: Rival Cloud." in html
    )
    assert "Consensus of 2 evaluators" in html
    assert "Racks already installed." in html  # bob's comment, with his rating
    bob = html[html.index('data-view="evaluator:') :]
    bob = bob[bob.index("<h3>bob</h3>") :]
    assert bob.index("Rival Cloud") < bob.index("Northwind")


def test_evaluators_who_agree_are_told_so(scored, buyer, buyer_colleague):
    save(buyer.client(), scored, cost_only())
    save(buyer_colleague.client(), scored, {**cost_only(), "fabric_placement": "5"})
    html = section(compare(buyer.client(), scored))
    assert 'id="team-disagreement"' not in html
    assert "Every evaluator ranks <strong>Northwind</strong> first." in html


def test_a_refused_view_keeps_what_was_typed_and_names_the_field(scored, buyer):
    data = {
        **risk_first(scored),
        "fabric_placement": "-3",
        f"judged_delivery_risk_{scored.bid.pk}_comment": "Typed, then refused.",
    }
    response = save(buyer.client(), scored, data)
    assert response.status_code == 400
    html = form(response.content.decode())  # the member's own page again, not the comparison
    assert "Must not be negative, got -3." in html
    assert 'value="-3"' in html and "Typed, then refused." in html
    assert 'value="80"' in html  # the judged weight typed
    assert not EvaluatorView.objects.exists()


@pytest.mark.parametrize(
    ("rating", "comment", "message"),
    [
        ("7", "", "Rate from 1 to 5, got 7."),
        ("", "A comment alone.", "Rate the bid to keep your comment."),
    ],
)
def test_a_rating_out_of_scale_or_missing_is_refused(scored, buyer, rating, comment, message):
    field = f"judged_acceptance_terms_{scored.bid.pk}"
    data = {**cost_only(), field: rating, f"{field}_comment": comment}
    response = save(buyer.client(), scored, data)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_all_weights_zero_is_refused_in_words(scored, buyer):
    data = {**cost_only(), "effective_cost": "0"}
    response = save(buyer.client(), scored, data)
    assert response.status_code == 400
    assert "At least one weight must be above zero." in response.content.decode()


def test_saving_again_replaces_the_members_own_view_only(scored, buyer, buyer_colleague):
    save(buyer.client(), scored, risk_first(scored))
    save(buyer_colleague.client(), scored, cost_only())
    save(buyer.client(), scored, cost_only())
    assert EvaluatorView.objects.count() == 2
    mine = EvaluatorView.objects.get(evaluator=buyer.user)
    assert mine.weights["effective_cost"] == 100 and not mine.judgements.exists()


def test_a_member_who_left_no_longer_counts(scored, buyer, buyer_colleague):
    save(buyer.client(), scored, cost_only())
    save(buyer_colleague.client(), scored, risk_first(scored))
    Membership.objects.filter(user=buyer_colleague.user).delete()
    html = section(compare(buyer.client(), scored))
    assert "<h3>bob</h3>" not in html and "Consensus of 1 evaluator" in html


def test_a_sealed_request_takes_no_view(scored, buyer):
    scored.request.sealed = True
    scored.request.save()
    response = save(buyer.client(), scored, cost_only())
    assert response.status_code == 302 and not EvaluatorView.objects.exists()


def test_providers_never_see_evaluators_or_their_views(scored, buyer, buyer_colleague, provider):
    save(buyer_colleague.client(), scored, risk_first(scored))
    client = provider.client()
    assert (
        client.get(reverse("evaluation:request-compare", args=[scored.request.pk])).status_code
        == 404
    )
    assert save(client, scored, cost_only()).status_code == 404
    for url in (
        reverse("bids:request-detail", args=[scored.request.pk]),
        reverse("bids:bid-detail", args=[scored.bid.pk]),
    ):
        html = client.get(url).content.decode()
        assert "Racks already installed" not in html and "Team evaluation" not in html
    actions = set(visible_to(org=provider.org).values_list("action", flat=True))
    assert "request.evaluator_view" not in actions


def test_the_team_section_reads_the_same_queries_for_2_evaluators_and_5(
    scored, buyer, buyer_colleague, buyer_requester, buyer_approver
):
    client = buyer.client()
    save(client, scored, cost_only())
    save(buyer_colleague.client(), scored, risk_first(scored))
    compare(client, scored)  # warm the session and caches
    with CaptureQueriesContext(connection) as few:
        compare(client, scored)
    save(buyer_requester.client(), scored, risk_first(scored))
    save(buyer_approver.client(), scored, cost_only())
    add_bids(scored.request, 6)
    score(scored.request)
    compare(client, scored)  # the new run's presentation is built once, then read back
    with CaptureQueriesContext(connection) as many:
        html = compare(client, scored)
    assert "Consensus of 4 evaluators" in html
    assert len(many.captured_queries) <= len(few.captured_queries)


# The award follows a view, and says which.


def _closed(world: Any) -> Any:
    attach_fixture(world.request, two_node_spec())
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    return world


def award(client: Any, bid: Any, view: str, justification: str = "") -> Any:
    url = reverse("evaluation:bid-award", args=[bid.pk])
    return client.post(url, {"view": view, "justification": justification})


def test_the_award_records_the_consensus_it_followed(scored, buyer, buyer_colleague, provider):
    save(buyer.client(), scored, cost_only())
    save(buyer_colleague.client(), scored, risk_first(scored))
    _closed(scored)
    panel = buyer.client().get(reverse("bids:request-detail", args=[scored.request.pk]))
    assert 'value="consensus"' in panel.content.decode()
    # The consensus ranks the rival first: awarding it follows the consensus, no reason needed.
    response = award(buyer.client(), scored.rival_bid, "consensus")
    assert response.status_code == 302
    basis = AwardBasis.objects.get(request=scored.request)
    assert (basis.view, basis.label, basis.first_in_view, basis.followed) == (
        "consensus",
        "Consensus of 2 evaluators",
        "Rival Cloud",
        True,
    )
    page = buyer.client().get(reverse("bids:request-detail", args=[scored.request.pk]))
    assert (
        "The award followed <strong>the consensus of 2 evaluators</strong>" in page.content.decode()
    )
    entry = visible_to(org=buyer.org).get(action="request.award_view")
    assert entry.after["label"] == "Consensus of 2 evaluators"
    assert not visible_to(org=provider.org).filter(action="request.award_view").exists()
    provider_page = provider.client().get(reverse("bids:request-detail", args=[scored.request.pk]))
    assert "award followed" not in provider_page.content.decode()


def test_an_award_against_the_evaluator_view_it_follows_needs_a_reason(
    scored, buyer, buyer_colleague
):
    save(buyer_colleague.client(), scored, risk_first(scored))
    _closed(scored)
    view = f"evaluator:{buyer_colleague.user.pk}"
    award(buyer.client(), scored.bid, view)
    assert not AwardBasis.objects.exists()
    award(buyer.client(), scored.bid, view, REASON)
    basis = AwardBasis.objects.get()
    assert (basis.view, basis.label, basis.followed) == ("evaluator", "bob", False)
    assert basis.evaluator_id == buyer_colleague.user.pk
    page = buyer.client().get(reverse("bids:request-detail", args=[scored.request.pk]))
    text = page.content.decode().replace("&#x27;", "'")
    assert "The award followed <strong>bob's view</strong>" in text
    assert "the award went against it, with the justification recorded" in text


def test_the_request_weights_remain_the_default_view(scored, buyer):
    _closed(scored)
    award(buyer.client(), scored.bid, "")
    basis = AwardBasis.objects.get()
    assert (basis.view, basis.first_in_view, basis.followed) == ("request", "Northwind", True)


def test_an_unknown_view_is_refused_in_words(scored, buyer):
    _closed(scored)
    client = buyer.client()
    response = award(client, scored.bid, "evaluator:999")
    assert response.status_code == 302 and not AwardBasis.objects.exists()
    page = client.get(response["Location"]).content.decode()
    assert "No view &#x27;evaluator:999&#x27; on this request" in page


def test_the_xlsx_gains_a_team_sheet_once_members_set_views(scored, buyer, buyer_colleague):
    url = reverse("evaluation:request-compare-xlsx", args=[scored.request.pk])
    before = load_workbook(io.BytesIO(buyer.client().get(url).content))
    assert "Team evaluation" not in before.sheetnames
    save(buyer.client(), scored, cost_only())
    save(buyer_colleague.client(), scored, risk_first(scored))
    book = load_workbook(io.BytesIO(buyer.client().get(url).content))
    rows = [[c for c in row if c is not None] for row in book["Team evaluation"].values]
    assert [
        "alice ranks Northwind first, bob ranks Rival Cloud first; consensus: Rival Cloud."
    ] in rows
    assert [
        "Rating",
        "Rival Cloud",
        "Delivery risk (judged)",
        5,
        "Racks already installed.",
    ] in rows


def _rating_fields(html: str) -> list[str]:
    return re.findall(r'name="(judged_delivery_risk_\d+)"', form(html))


def test_the_form_lists_the_leading_bids_and_those_rated_and_opens_to_every_bid(scored, buyer):
    """At many bids the form rates the leading six; a rating given through "rate every bid"
    keeps its bid listed, and saving the shorter form again keeps that rating."""
    add_bids(scored.request, 10)
    score(scored.request)
    order = [
        f"judged_delivery_risk_{c.revision.bid_id}"
        for c in comparison_for_buyer(capacity_request=scored.request).qualified_columns
    ]
    assert len(order) > FORM_LEADING_BIDS + 2
    client = buyer.client()
    html = team_page(client, scored)
    assert _rating_fields(html) == order[:FORM_LEADING_BIDS]
    assert f"{len(order) - FORM_LEADING_BIDS} other qualified bids are not listed" in html
    assert '<a href="?rate=all">Rate every qualified bid</a>' in html
    every = team_page(client, scored, "?rate=all")
    assert _rating_fields(every) == order and "team-form-more" not in every

    last = order[-1]
    assert save(client, scored, {**cost_only(), last: "2"}).status_code == 302
    assert _rating_fields(team_page(client, scored)) == [*order[:FORM_LEADING_BIDS], last]
    # The shorter form posts what it lists: the leading bids (unrated) and the rated one.
    posted = {**cost_only(), **dict.fromkeys(order[:FORM_LEADING_BIDS], ""), last: "4"}
    assert save(client, scored, posted).status_code == 302
    mine = EvaluatorView.objects.get(evaluator=buyer.user)
    assert [(j.bid_id, j.score) for j in mine.judgements.all()] == [(int(last.split("_")[-1]), 4)]
