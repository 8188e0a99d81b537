"""The walking skeleton in a real browser: post a request, invite, bid, see the bid."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bids.models import Bid, CapacityRequest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_buyer_posts_provider_bids_buyer_sees_it(live_server, new_page, login_as, buyer, provider):
    start = timezone.localdate() + timedelta(days=60)
    deadline = timezone.localtime() + timedelta(days=10)

    buyer_page = login_as(new_page(), "alice")
    buyer_page.click("text=New request")
    buyer_page.fill("#id_title", "Browser test: 16 × H200")
    buyer_page.select_option("#id_gpu_model", "H200")
    buyer_page.fill("#id_gpu_count", "16")
    buyer_page.fill("#id_nodes", "2")
    buyer_page.fill("#id_gpus_per_node", "6")  # inconsistent on purpose
    buyer_page.check("text=European Union")
    buyer_page.fill("#id_reservation_start", start.isoformat())
    buyer_page.fill("#id_reservation_end", (start + timedelta(days=90)).isoformat())
    buyer_page.fill("#id_bid_deadline", deadline.strftime("%Y-%m-%dT%H:%M"))
    buyer_page.uncheck("#id_sealed")
    buyer_page.click("text=Save draft")

    # The mistake is named on the field and everything typed is kept.
    assert "is 12 GPUs, not 16" in buyer_page.inner_text("#id_gpu_count_error")
    assert buyer_page.input_value("#id_title") == "Browser test: 16 × H200"
    buyer_page.fill("#id_gpus_per_node", "8")
    buyer_page.click("text=Save draft")
    buyer_page.wait_for_selector("text=Request saved as a draft")

    buyer_page.check(f"text={provider.org.name}")
    buyer_page.click("text=Send invitations")
    buyer_page.wait_for_selector(f"text=Invited {provider.org.name}")
    buyer_page.click("button:has-text('Publish')")
    buyer_page.wait_for_selector("text=Open for bids")
    request_url = buyer_page.url

    provider_page = login_as(new_page(), "nora")
    provider_page.click("text=Browser test: 16 × H200")
    provider_page.click("text=Start a bid")
    provider_page.fill("#id_price_per_gpu_hour", "2.35")
    provider_page.click("button[name=submit]")
    # Region was left empty: refused on the field, the price is kept.
    assert "Choose the region" in provider_page.inner_text("#id_region_error")
    assert provider_page.input_value("#id_price_per_gpu_hour") == "2.35"
    provider_page.select_option("#id_region", "eu")
    provider_page.click("button[name=submit]")
    provider_page.wait_for_selector("text=Revision 1 submitted and frozen")

    buyer_page.goto(request_url)
    row = buyer_page.locator("#bids tr", has_text=provider.org.name)
    assert "Submitted" in row.inner_text()
    assert "$2.350" in row.inner_text()

    req = CapacityRequest.objects.get(title="Browser test: 16 × H200")
    assert Bid.objects.get(request=req).revisions.count() == 1
