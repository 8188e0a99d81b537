"""In a real browser: the provider proposes a workaround, the buyer approves it, the provider
posts a repair estimate, and the buyer copies the generated ticket."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from incidents import services
from incidents.models import ChangeStatus
from tests.incidents.helpers import accept, scenario_upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_workaround_approved_estimate_posted_ticket_copied(
    live_server, new_page, login_as, world, buyer, provider
):
    done = accept(world, buyer, provider)
    run = services.failed_run_upload(
        reservation=done.reservation, user=provider.user, uploads=[scenario_upload()]
    )
    run.refresh_from_db()
    incident = services.incident_open(failed_run=run, user=buyer.user)
    url = f"{live_server.url}/incidents/{incident.pk}/"

    page = login_as(new_page(), "nora")
    page.goto(url)
    page.click("#change-log summary")
    page.select_option("#change_kind", "workaround")
    page.fill("#change_what", "Run on 31 nodes without node-17")
    page.click("#change-propose button[type=submit]")
    page.wait_for_selector("text=the buyer approves or declines it")
    assert "awaiting the buyer" in page.inner_text("#change-log")

    buyer_page = login_as(new_page(), "alice")
    buyer_page.goto(url)
    buyer_page.click("#change-log button[value=approve]")
    buyer_page.wait_for_selector("text=is approved")
    assert incident.changes.get().status == ChangeStatus.APPROVED

    eta = (timezone.now() + timedelta(hours=4)).strftime("%Y-%m-%d %H:%M")
    page.goto(url)
    page.click("#repair-estimate summary")
    page.select_option("#estimate_cause_class", "gpu")
    page.fill("#estimate_parts", "H200 SXM5 GPU")
    page.fill("#estimate_eta", eta)
    page.select_option("#estimate_confidence", "high")
    page.click("#estimate-form button[type=submit]")
    page.wait_for_selector("#estimate-cause:has-text('GPU')")
    assert eta in page.inner_text("#estimate-eta")

    buyer_page.goto(url)
    ticket = buyer_page.input_value("#ticket-text")
    assert "approved by the buyer (alice)" in ticket and "repair estimate r1 by nora" in ticket
    buyer_page.click("#ticket button[data-copy]")
    buyer_page.wait_for_selector("#ticket-text-status:not(:empty)")
