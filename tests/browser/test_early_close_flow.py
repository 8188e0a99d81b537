"""A sealed request closed early, in a real browser: the buyer confirms, sees the bids and the
award panel at once, reopens with a new deadline, and the provider can revise again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bids.choices import RequestStatus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_close_early_then_reopen(live_server, new_page, login_as, world, provider):
    req = world.request
    req.sealed = True
    req.bid_deadline = timezone.now() + timedelta(weeks=3)
    req.save()
    url = f"{live_server.url}/requests/{req.pk}/"

    page = login_as(new_page(), "alice")
    page.goto(url)
    assert "sealed bids, opening" in page.inner_text("#seal-state")
    assert page.locator("#bids tbody tr").count() == 0

    # Closing asks first, saying what happens.
    page.click("#close-link")
    assert "The sealed bids open to you at once" in page.inner_text("#consequences")
    assert "Every invited provider is told" in page.inner_text("#consequences")
    page.click("#confirm-move")
    page.wait_for_selector("text=Bidding closed.")
    assert page.locator("#bids tbody tr").count() == 2
    assert page.locator("#award-panel tbody tr").count() == 2
    assert "sealed bids, opened" in page.inner_text("#seal-state")

    # The provider's draft is frozen: no form, and why.
    nora = login_as(new_page(), "nora")
    nora.goto(f"{live_server.url}/bids/{world.bid.pk}/")
    assert "Bidding closed on" in nora.inner_text("#edit-blocked")
    assert nora.locator("text=Submit revision").count() == 0

    # Reopening needs a future deadline (named on its field, what was typed kept) and a tick.
    past = (timezone.localtime() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    page.fill("#id_bid_deadline", past)
    page.check("#id_confirm")
    page.click("#reopen-submit")
    assert "must be in the future" in page.inner_text("#id_bid_deadline_error")
    assert page.input_value("#id_bid_deadline") == past
    page.fill(
        "#id_bid_deadline", (timezone.localtime() + timedelta(days=20)).strftime("%Y-%m-%dT%H:%M")
    )
    page.check("#id_confirm")
    page.click("#confirm-move")
    page.wait_for_selector("text=Bidding reopened until the new deadline.")
    assert page.locator("#bids tbody tr").count() == 2  # opened bids stay visible
    req.refresh_from_db()
    assert req.status == RequestStatus.OPEN

    # The provider revises again.
    nora.goto(f"{live_server.url}/bids/{world.bid.pk}/")
    nora.click(f"a[href='/bids/{world.bid.pk}/edit/']")
    nora.fill("#id_price_per_gpu_hour", "2.25")
    nora.click("button[name=submit]")
    nora.wait_for_selector("text=Revision 2 submitted and frozen")
