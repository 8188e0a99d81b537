"""A final-round loser reading its debrief on the bid page, in a real browser: of three bids,
the buyer shortlists two for a best-and-final round, closes it and awards one finalist from
the award panel; the provider left out opens the loss notice, lands on its own bid page and
reads why it did not win there, without the winner's name or price."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from acceptance.services.fixtures import fixture_from_template
from bids import services
from bids.choices import BidStatus
from evaluation.selectors import award_rows
from orgs.choices import OrgKind
from tests.factories import BidFactory, MembershipFactory, OrganizationFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_final_round_loser_reads_its_debrief_on_the_bid_page(
    live_server, new_page, login_as, world, buyer
):
    req = world.request
    fixture_from_template(capacity_request=req, user=buyer.user, template="rank-sum-allreduce")
    third_org = OrganizationFactory(name="Third Cloud", slug="third", kind=OrgKind.PROVIDER)
    tess = UserFactory(username="tess")
    MembershipFactory(user=tess, organization=third_org)
    third = BidFactory(request=req, provider=third_org, price_per_gpu_hour="2.7")
    services.bid_submit(bid=third, user=tess)
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    services.final_round_open(
        capacity_request=req,
        user=buyer.user,
        shortlist=[world.bid.pk, world.rival_bid.pk],
        bid_deadline=timezone.now() + timedelta(days=3),
        confirmed=True,
    )
    url = f"{live_server.url}/requests/{req.pk}/"

    alice = login_as(new_page(), "alice")
    alice.on("dialog", lambda dialog: dialog.accept())
    alice.goto(url)
    alice.click("#close-link")
    alice.click("#confirm-move")
    alice.wait_for_selector("text=Bidding closed.")
    req.refresh_from_db()
    winner = next(row for row in award_rows(capacity_request=req) if row.rank == 1)
    assert winner.bid.pk in (world.bid.pk, world.rival_bid.pk)  # a finalist
    alice.click(f"#award-panel form[action$='/bids/{winner.bid.pk}/award/'] button")
    alice.wait_for_selector(f"text=Awarded to {winner.bid.provider.name}")

    out = login_as(new_page(), "tess")
    out.goto(f"{live_server.url}/notices/")
    notice = out.locator(".notice", has_text="was awarded to another bid")
    notice.locator("a").first.click()
    out.wait_for_url(f"**/bids/{third.pk}/")
    debrief = out.inner_text("#debrief")
    assert "Debrief: why this bid did not win" in debrief
    assert "not shortlisted for the best-and-final round" in debrief
    assert "In round 1 your bid ranked" in debrief
    winning_price = str(winner.revision.price_per_gpu_hour)
    assert winner.bid.provider.name not in debrief and winning_price not in debrief
    third.refresh_from_db()
    assert third.status == BidStatus.LOST
