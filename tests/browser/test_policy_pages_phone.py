"""On a 390 px phone the approval policy page, the organisation's audit log and a request page
with its approvals card fit the width: nothing scrolls the page sideways."""

from __future__ import annotations

import pytest
from django.urls import reverse

from bids.models import ApprovalPolicy, ApprovalRequest
from tests.evaluation.pages.test_phone_layout import PHONE, _fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_policy_pages_fit_a_390_px_phone(live_server, new_page, login_as, world, buyer):
    ApprovalPolicy.objects.create(organization=buyer.org, award_two_over=500_000)
    ApprovalRequest.objects.create(
        request=world.request, action="award", bid=world.bid, value=612_345, needed=2,
        asked_by=buyer.user, justification="The only bid with spare nodes on site for the term.",
    )  # fmt: skip
    phone = {"viewport": PHONE, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
    page = login_as(new_page(**phone), "alice")
    _fits(page, live_server.url + reverse("bids:approval-policy"))
    _fits(page, live_server.url + reverse("audit:log"))
    _fits(page, live_server.url + reverse("bids:request-detail", args=[world.request.pk]))
    assert "$612,345.00" in page.inner_text("#approvals")
