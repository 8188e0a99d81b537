"""Team evaluation in a real browser: two buyer members set their own weights and ratings on
their own page, reached from the comparison page, which pick different winners; the comparison
page shows both rankings and says they disagree; the award follows the consensus and the request
page says so."""

from __future__ import annotations

import pytest

from acceptance.services.fixtures import fixture_from_template
from bids.choices import RequestStatus
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from evaluation.models import AwardBasis
from evaluation.services import request_score

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_view(page) -> None:
    """From the comparison page to the member's own weights and ratings."""
    page.click("#team-view-link")
    page.wait_for_selector("#team-form")


def set_view(page, weights: dict[str, str], ratings: dict[str, tuple[str, str]]) -> None:
    """Save the member's view: back on the comparison page, at its team section."""
    for name, value in weights.items():
        page.fill(f"#team_{name}", value)
    for field, (score, comment) in ratings.items():
        page.select_option(f"#team_{field}", score)
        page.fill(f"#team_{field}_comment", comment)
    page.click("#team-form button[type=submit]")
    page.wait_for_selector("text=Your weights and ratings are saved.")
    assert page.url.endswith("/compare/#team-evaluation")


def test_two_evaluators_disagree_on_the_comparison_page_and_the_award_follows_the_consensus(
    live_server, new_page, login_as, world, buyer, buyer_colleague
):
    req = world.request
    assert request_score(capacity_request=req).status == "done"
    compare = f"{live_server.url}/requests/{req.pk}/compare/"
    cost_only = {
        "effective_cost": "100",
        "fabric_placement": "0",
        "incident_sla": "0",
        "acceptance_terms": "0",
        "delivery_risk": "0",
    }

    alice = login_as(new_page(), "alice")
    alice.goto(compare)
    open_view(alice)
    set_view(alice, cost_only, {})
    assert "(saved " in alice.inner_text("#team-mine")

    bob = login_as(new_page(), "bob")
    bob.goto(compare)
    open_view(bob)
    # A negative weight is refused in words, and the page keeps what bob typed.
    bob.evaluate("document.querySelector('#team_effective_cost').removeAttribute('min')")
    bob.fill("#team_effective_cost", "-20")
    bob.fill("#team_judged_delivery_risk", "80")
    bob.click("#team-form button[type=submit]")
    bob.wait_for_selector("text=Must not be negative")
    assert bob.input_value("#team_judged_delivery_risk") == "80"
    assert bob.locator("#matrix").count() == 0  # still on his own page
    set_view(
        bob,
        {**cost_only, "effective_cost": "20", "judged_delivery_risk": "80"},
        {
            f"judged_delivery_risk_{world.bid.pk}": ("1", "No spare nodes on site."),
            f"judged_delivery_risk_{world.rival_bid.pk}": ("5", "Racks already installed."),
        },
    )

    alice.goto(compare)
    team = alice.locator("#team-evaluation")
    assert "alice ranks Northwind first, bob ranks Rival Cloud first; consensus: Rival Cloud." in (
        alice.inner_text("#team-disagreement")
    )
    alice_first = team.locator(f'[data-view="evaluator:{buyer.user.pk}"] li').first.inner_text()
    bob_first = team.locator(
        f'[data-view="evaluator:{buyer_colleague.user.pk}"] li'
    ).first.inner_text()
    assert alice_first.startswith("Northwind") and bob_first.startswith("Rival Cloud")
    assert "Racks already installed." in team.inner_text()

    # Bidding closed: alice awards the rival, following the consensus.
    fixture_from_template(capacity_request=req, user=buyer.user, template=DEFAULT_TEMPLATE)
    req.status = RequestStatus.CLOSED
    req.save()
    alice.goto(f"{live_server.url}/requests/{req.pk}/")
    alice.select_option(f"#view-{world.rival_bid.pk}", "consensus")
    alice.on("dialog", lambda dialog: dialog.accept())
    alice.click(f"#award-panel form[action$='/bids/{world.rival_bid.pk}/award/'] button")
    alice.wait_for_selector("text=Awarded to Rival Cloud")
    assert AwardBasis.objects.get(request=req).label == "Consensus of 2 evaluators"
    alice.goto(f"{live_server.url}/requests/{req.pk}/")
    assert "The award followed the consensus of 2 evaluators" in alice.inner_text("#award-basis")


def test_with_many_bids_a_member_opens_the_full_form_rates_a_trailing_bid_and_keeps_it(
    live_server, new_page, login_as, world, buyer
):
    from evaluation.comparison import comparison_for_buyer
    from evaluation.views_team import FORM_LEADING_BIDS
    from tests.evaluation.pages.conftest import add_bids

    req = world.request
    add_bids(req, 10)
    assert request_score(capacity_request=req).status == "done"
    order = [
        c.revision.bid_id for c in comparison_for_buyer(capacity_request=req).qualified_columns
    ]
    last = f"judged_delivery_risk_{order[-1]}"
    page = login_as(new_page(), "alice")
    page.goto(f"{live_server.url}/requests/{req.pk}/compare/")
    assert page.locator("#team-evaluation select").count() == 0
    open_view(page)
    assert page.locator(f"#team_{last}").count() == 0
    assert page.locator("#team-form select").count() == 2 * FORM_LEADING_BIDS
    page.click("#team-form-more a")
    page.wait_for_selector(f"#team_{last}")
    set_view(page, {}, {last: ("2", "Late racks.")})
    # Back on the shorter form, the rated bid is listed with its rating, and saving keeps it.
    open_view(page)
    assert page.locator("#team-form-more").count() == 1
    assert page.input_value(f"#team_{last}") == "2"
    page.click("#team-form button[type=submit]")
    page.wait_for_selector("text=Your weights and ratings are saved.")
    open_view(page)
    assert page.input_value(f"#team_{last}") == "2"
    assert page.input_value(f"#team_{last}_comment") == "Late racks."
