"""An award that needs two approvers over its threshold, in a real browser: the administrator
sets the policy and records a delegation on the policy page; a requester's award waits instead
of happening; the asker cannot approve it, one approver approves, a second one cannot approve
twice, and a delegate approves for the approver who is away, which makes the award in the
asker's name and records "approved by rhea for vera"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from acceptance.models import Reservation
from bids.models import ApprovalStatus
from orgs.choices import MemberRole
from tests.evaluation.pages.conftest import score
from tests.evaluation.pages.test_award import _closed
from tests.factories import MembershipFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _member(org, username: str, role: str) -> None:
    MembershipFactory(user=UserFactory(username=username), organization=org, role=role)


def test_an_award_that_needs_two_approvers_over_its_threshold(
    live_server, new_page, login_as, world
):
    org = world.request.buyer
    _member(org, "rhea", MemberRole.REQUESTER)
    _member(org, "abel", MemberRole.APPROVER)
    _member(org, "vera", MemberRole.APPROVER)
    req = _closed(world).request
    score(req)
    url = f"{live_server.url}/requests/{req.pk}/"
    award = f"#award-panel form[action$='/bids/{world.bid.pk}/award/'] button"

    # The administrator: awards over $50,000 need a second approver; Vera is away this week.
    alice = login_as(new_page(), "alice")
    alice.goto(f"{live_server.url}/approvals/")
    alice.fill("#id_award_one_over", "10000")
    alice.fill("#id_award_two_over", "50000")
    alice.click("#policy-submit")
    alice.wait_for_selector("text=approval policy is saved")
    today = timezone.localdate()
    alice.select_option("#id_delegator", label="vera")
    alice.select_option("#id_delegate", label="rhea")
    alice.fill("#id_starts_on", today.isoformat())
    alice.fill("#id_ends_on", (today + timedelta(days=6)).isoformat())
    alice.click("#delegation-submit")
    alice.wait_for_selector("text=rhea may approve for vera")

    # A requester awards: over the threshold, the award waits for two approvers.
    rhea = login_as(new_page(), "rhea")
    rhea.on("dialog", lambda dialog: dialog.accept())
    rhea.goto(url)
    rhea.click(award)
    rhea.wait_for_selector("text=This award needs two different approvers")
    assert not Reservation.objects.filter(request=req).exists()
    card = rhea.locator("#approvals")
    assert "Awaiting approval" in card.inner_text() and "needs 2 approvers" in card.inner_text()
    # The asker sees no approve button on what they asked for, though Vera delegated to them.
    assert card.locator("button", has_text="Approve").count() == 0
    assert "a different approver must approve" in card.inner_text()

    abel = login_as(new_page(), "abel")
    abel.goto(url)
    abel.locator("#approvals button", has_text="Approve").click()
    abel.wait_for_selector("text=a second approver must approve too")
    assert "Approved by abel" in abel.inner_text("#approvals")
    assert abel.locator("#approvals button", has_text="Approve").count() == 0  # never twice
    assert not Reservation.objects.filter(request=req).exists()

    # Rhea asked, so even as Vera's delegate she may not approve: another asker shows the
    # delegation at work. The administrator withdraws and Rhea's colleague Alice asks again.
    rhea.goto(url)
    assert rhea.locator("#approvals button", has_text="Approve").count() == 0

    alice.goto(url)
    alice.locator("#approvals button", has_text="Withdraw").click()
    alice.wait_for_selector("text=The approval request is withdrawn")
    alice.on("dialog", lambda dialog: dialog.accept())
    alice.click(award)
    alice.wait_for_selector("text=This award needs two different approvers")

    abel.goto(url)
    abel.locator("#approvals button", has_text="Approve").first.click()
    abel.wait_for_selector("text=a second approver must approve too")

    rhea.goto(url)
    live = rhea.locator("#approvals li").first
    assert "For vera (delegated to you)" in live.inner_text()
    live.locator("button", has_text="Approve").click()
    rhea.wait_for_selector("text=Approved: the request is awarded")
    reservation = Reservation.objects.get(request=req)
    assert reservation.bid_id == world.bid.pk and reservation.awarded_by.username == "alice"
    record = rhea.locator("#approvals li").first.inner_text()
    assert "Approved by abel; approved by rhea for vera" in record
    assert req.approval_requests.order_by("-pk").first().status == ApprovalStatus.DONE
