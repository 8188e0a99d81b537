"""The questionnaire in a real browser: the provider fills the matrix, trips on a bad clock,
fixes it, submits; the buyer sees the answers side by side with the slow clock highlighted."""

from __future__ import annotations

import pytest

from questionnaire import selectors, services
from questionnaire.defaults import STEPS
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.questionnaire.conftest import full_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OWNERS = {"restart": "buyer", "checkpoint": "buyer", "detect": "shared"}
CLOCKS = {
    "detect.S1.response": "15 min",
    "detect.S2.response": "1 h",
    "detect.S3.response": "15 parsecs",  # the mistake
    "repair.S1.restore": "4 h",
    "repair.S2.restore": "8 h",
    "repair.S3.restore": "3 days",
}


def test_provider_fills_the_matrix_and_buyer_compares(
    live_server, new_page, login_as, buyer, provider
):
    req = CapacityRequestFactory(buyer=buyer.org, title="Browser: questionnaire")
    InvitationFactory(request=req, provider=provider.org)
    qs = services.question_set_attach_default(capacity_request=req, user=buyer.user)
    bid = BidFactory(request=req, provider=provider.org)
    # Operations answers are already in the draft; the matrix is what the provider fills here.
    matrix_keys = {s.key for s in selectors.question_specs(question_set=qs) if s.step}
    ops = {k: v for k, v in full_answers(qs).items() if k not in matrix_keys}
    services.answers_save(bid=bid, user=provider.user, raw=ops)

    page = login_as(new_page(), "nora")
    page.goto(f"{live_server.url}/bids/{bid.pk}/")
    page.click("#questionnaire >> text=Edit answers")
    for step, _, _ in STEPS:
        page.select_option(f"#id-q-{step}-owner", OWNERS.get(step, "provider"))
    for key, value in CLOCKS.items():
        page.fill(f"#id-q-{key.replace('.', '-')}", value)
    page.click("button[name=submit]")

    # Refused in place: the cell says why, and everything typed is still there.
    cell = page.locator("#step-detect td.has-error")
    assert "'15 parsecs' is not a duration" in cell.inner_text()
    assert page.input_value("#id-q-detect-S1-response") == "15 min"
    assert page.input_value("#id-q-repair-owner") == "provider"
    page.fill("#id-q-detect-S3-response", "10 h")
    page.click("button[name=submit]")
    page.wait_for_selector("text=Revision 1 submitted and frozen")

    buyer_page = login_as(new_page(), "alice")
    buyer_page.goto(f"{live_server.url}/requests/{req.pk}/")
    buyer_page.click("#questionnaire >> text=Answers side by side")
    matrix = buyer_page.locator("#answers-matrix")
    assert provider.org.name in matrix.locator("thead").inner_text()
    row = matrix.locator("tr", has_text="Detect: S3 first response")
    assert row.locator("td.miss").inner_text() == "10 h"  # the S3 target is 8 h
    assert "Shared" in matrix.locator("tr", has_text="Detect: owner").inner_text()
