"""A best-and-final round in a real browser: the buyer closes bidding, shortlists two of three
bids with a new deadline; a shortlisted provider revises its price, the one left out cannot;
the buyer closes the round and the comparison shows round 1 and the final round side by side."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bids import services
from orgs.choices import OrgKind
from tests.factories import BidFactory, MembershipFactory, OrganizationFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_best_and_final_round(live_server, new_page, login_as, world, provider):
    req = world.request
    third_org = OrganizationFactory(name="Third Cloud", slug="third", kind=OrgKind.PROVIDER)
    tess = UserFactory(username="tess")
    MembershipFactory(user=tess, organization=third_org)
    third = BidFactory(request=req, provider=third_org, price_per_gpu_hour="2.7")
    services.bid_submit(bid=third, user=tess)
    url = f"{live_server.url}/requests/{req.pk}/"

    page = login_as(new_page(), "alice")
    page.goto(url)
    page.click("#close-link")
    page.click("#confirm-move")
    page.wait_for_selector("text=Bidding closed.")

    # The final round: what happens, a shortlist of two, a deadline and the confirmation.
    page.click("#final-round-link")
    assert "from the shortlisted providers only" in page.inner_text("#consequences")
    page.check(f"input[name=shortlist][value='{world.bid.pk}']")
    page.check(f"input[name=shortlist][value='{world.rival_bid.pk}']")
    deadline = (timezone.localtime() + timedelta(days=5)).strftime("%Y-%m-%dT%H:%M")
    page.fill("#id_bid_deadline", deadline)
    page.check("#id_confirm")
    page.click("#confirm-move")
    page.wait_for_selector("text=Best-and-final round opened")
    assert "Northwind, Rival Cloud" in page.inner_text("#shortlist")
    assert "sealed" in page.inner_text("#final-round")
    assert page.locator("#bids tbody tr").count() == 0  # sealed again

    # The shortlisted provider revises its price.
    nora = login_as(new_page(), "nora")
    nora.goto(url)
    assert "Your bid is shortlisted" in nora.inner_text("#final-round-state")
    nora.goto(f"{live_server.url}/bids/{world.bid.pk}/")
    nora.click(f"a[href='/bids/{world.bid.pk}/edit/']")
    nora.fill("#id_price_per_gpu_hour", "2.05")
    nora.click("button[name=submit]")
    nora.wait_for_selector("text=Revision 2 submitted and frozen")

    # The provider left out cannot revise, and is told why.
    out = login_as(new_page(), "tess")
    out.goto(url)
    assert "not shortlisted" in out.inner_text("#final-round-state")
    assert "Northwind" not in out.inner_text("main")
    out.goto(f"{live_server.url}/bids/{third.pk}/")
    assert "does not include your bid" in out.inner_text("#edit-blocked")
    assert out.locator(f"a[href='/bids/{third.pk}/edit/']").count() == 0
    edit = out.goto(f"{live_server.url}/bids/{third.pk}/edit/")
    assert edit is not None and "does not include your bid" in out.inner_text("main")

    # The buyer closes the round; the comparison shows both rounds side by side.
    page.goto(url)
    page.click("#close-link")
    page.click("#confirm-move")
    page.wait_for_selector("text=Bidding closed.")
    page.goto(f"{live_server.url}/requests/{req.pk}/compare/")
    table = page.locator("#rounds-table")
    northwind = table.locator("tr", has_text="Northwind")
    assert "$2.400" in northwind.locator(".round1-price").inner_text()
    assert "$2.050" in northwind.locator(".final-price").inner_text()
    rival = table.locator("tr", has_text="Rival Cloud")
    assert "not revised" in rival.locator(".final-price").inner_text()
    assert "not shortlisted" in table.locator("tr", has_text="Third Cloud").inner_text()
