"""One fact, one field, in Chromium: the provider sees the bid's spare count in the
questionnaire, is warned of a conflicting note before submitting, fixes it and submits."""

from __future__ import annotations

import pytest

from bids.services import bid_save_draft
from questionnaire import selectors, services
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.questionnaire.conftest import full_answers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_conflict_is_flagged_before_submit_and_cleared_on_the_bid(
    live_server, new_page, login_as, buyer, provider
):
    req = CapacityRequestFactory(buyer=buyer.org, title="Browser: one fact")
    InvitationFactory(request=req, provider=provider.org)
    qs = services.question_set_attach_default(capacity_request=req, user=buyer.user)
    bid = BidFactory(request=req, provider=provider.org)
    bid_save_draft(
        bid=bid,
        user=provider.user,
        data={
            "spares_count": 1,
            "spares_location": "same_site",
            "notes": "We keep 2 spare nodes on site.",
        },
    )
    services.answers_save(bid=bid, user=provider.user, raw=full_answers(qs, spares=1))
    assert selectors.draft_state(bid=bid).missing == []

    page = login_as(new_page(), "nora")
    page.goto(f"{live_server.url}/bids/{bid.pk}/")
    flag = page.locator("#fact-conflicts")
    assert "resolve before you submit" in flag.inner_text()
    assert "Spare nodes: 1 in the bid field 'Spare nodes', but 2 in the bid's notes" in (
        flag.inner_text()
    )

    page.click("#questionnaire >> text=Edit answers")
    bound = page.locator("#field-spares\\.count")
    assert "Set on the bid: Spare nodes = 1 — edit on the bid" in bound.inner_text()
    bound.locator("text=edit on the bid").click()
    page.wait_for_url(f"**/bids/{bid.pk}/edit/**")
    page.fill("#id_notes", "We keep 1 spare node on site.")
    page.click("button[name=save]")
    page.wait_for_selector("text=Draft saved")  # back on the bid page
    assert page.locator("#fact-conflicts").count() == 0
    page.click("#questionnaire >> text=Edit answers")
    page.click("button[name=submit]")
    page.wait_for_selector("text=Revision 1 submitted and frozen")
    assert bid.revisions.get().questionnaire["answers"]["spares.count"] == 1
