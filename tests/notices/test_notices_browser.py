"""In Chromium: the buyer awards the second-ranked bid with a written justification; the loser
signs in, sees one unread notice in the header, reads its debrief and opens its bid from it."""

from __future__ import annotations

import pytest
from django.core import mail

from bids.choices import RequestStatus
from tests.acceptance.burnin.helpers import attach_fixture, media_root, two_node_spec
from tests.evaluation.pages.conftest import score
from tests.evaluation.pages.test_award import REASON

__all__ = ["media_root"]
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_loser_reads_its_debrief_in_the_app(
    live_server, new_page, login_as, world, buyer, provider, rival_provider
):
    attach_fixture(world.request, two_node_spec())
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    score(world.request)

    page = login_as(new_page(), "alice")
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{live_server.url}/requests/{world.request.pk}/")
    page.fill(f"#justification-{world.rival_bid.pk}", REASON)
    page.click("text=Award to Rival Cloud")
    page.wait_for_selector("text=Awarded to Rival Cloud")

    loser = login_as(new_page(), "nora")
    assert loser.inner_text("#notices-link .badge").startswith("1")
    loser.click("#notices-link")
    notice = loser.inner_text("#notice-list")
    assert "was awarded to another bid" in notice and "ranked 1 of 2 qualified bids" in notice
    assert "Rival Cloud" not in notice and "2.900" not in notice
    loser.click("text=was awarded to another bid")
    loser.wait_for_url(f"**/bids/{world.bid.pk}/")
    assert loser.locator("#notices-link .badge").count() == 0
    # The same debrief went out by e-mail, to Nora only on the provider's side.
    assert [m.to for m in mail.outbox if "another bid" in m.subject] == [[provider.user.email]]
