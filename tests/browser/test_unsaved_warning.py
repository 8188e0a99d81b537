"""Leaving a form with typed, unsent changes asks first; a page left untouched, or a form sent,
does not."""

from __future__ import annotations

import pytest

from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_leaving_a_bid_draft_with_typed_changes_asks_first(
    live_server, new_page, login_as, buyer, provider
):
    req = CapacityRequestFactory(buyer=buyer.org, title="Browser: unsaved")
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)
    page = login_as(new_page(), "nora")
    edit = f"{live_server.url}/bids/{bid.pk}/edit/"
    asked: list[str] = []

    def answer(dialog):
        asked.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", answer)
    page.goto(edit)
    page.click("a.brand")  # nothing typed: leaves without a question
    page.wait_for_url(lambda url: "/edit/" not in url)
    assert asked == []

    page.goto(edit)
    page.click("#id_notes")
    page.keyboard.type("Two racks, one row.")
    page.click("a.brand")
    page.wait_for_timeout(500)
    assert asked == ["beforeunload"]
    assert page.url == edit and page.input_value("#id_notes").endswith("Two racks, one row.")

    page.click("button[name=save]")  # sent: no question
    page.wait_for_selector("text=Draft saved")
    assert asked == ["beforeunload"]
