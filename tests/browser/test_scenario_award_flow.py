"""Awarding a scenario in a real browser, solved by a real worker: the buyer defines two
scenarios on the worked example's request once bidding has closed, compares them, awards the
second, and sees one reservation per lot and provider; each provider then sees only its own."""

from __future__ import annotations

import pytest

from acceptance.models import Reservation
from acceptance.services.fixtures import fixture_from_template
from bids.choices import RequestStatus
from engine.evidence.fixtures import DEFAULT_TEMPLATE
from tests.evaluation.pages.test_phone_layout import PHONE, _fits
from tests.evaluation.scenarios import world

worked, cirrus = world.worked, world.cirrus

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

WHY = "One fabric for pre-training and fine-tuning matters more than the cheaper split."


def _define(page, name: str, **fields: str) -> None:
    page.fill("#id_name", name)
    for field, value in fields.items():
        page.fill(f"#id_{field}", value)
    page.click("#scenario-form button[type=submit]")
    page.wait_for_selector(f"text=Scenario “{name}” is queued for solving")


def test_define_two_scenarios_compare_them_and_award_the_second(
    live_server,
    new_page,
    login_as,
    real_worker,
    worked,
    buyer,
    provider,
    rival_provider,
    cirrus,
):
    fixture_from_template(capacity_request=worked, user=buyer.user, template=DEFAULT_TEMPLATE)
    worked.status = RequestStatus.CLOSED
    worked.save(update_fields=["status"])

    page = login_as(new_page(), buyer.user.username)
    page.goto(f"{live_server.url}/requests/{worked.pk}/scenarios/")
    _define(page, "Cap 75 %, two regions", max_share_pct="75", min_regions="2")
    _define(page, "No rules")
    page.wait_for_function(
        "document.querySelectorAll('.status-row td.status-solved').length === 2",
        timeout=90_000,
    )
    costs = page.locator(".cost-row td").all_inner_texts()
    assert costs == ["$677,606.40", "$675,532.80"]
    second = page.locator("#scenario-comparison thead th").nth(2).get_attribute("data-scenario")

    page.on("dialog", lambda dialog: dialog.accept())
    page.fill(f"#justification-{second}", WHY)
    page.click(f"#award-scenario-{second}")
    page.wait_for_selector("text=Awarded “No rules”: 3 reservations")

    # The request page lists one reservation per (lot, provider).
    rows = page.locator("#reservations tbody tr").all_inner_texts()
    assert len(rows) == 3
    assert "1: Pre-training" in rows[0] and "Rival Cloud" in rows[0]
    assert "2: Fine-tuning" in rows[1] and "Rival Cloud" in rows[1]
    assert "3: Inference" in rows[2] and "Northwind" in rows[2]
    assert Reservation.objects.filter(request=worked).count() == 3
    assert {r.award_justification for r in Reservation.objects.filter(request=worked)} == {WHY}

    # Back on the scenarios page the award is stated and offered no more.
    page.goto(f"{live_server.url}/requests/{worked.pk}/scenarios/")
    assert "“No rules” was awarded" in page.inner_text("#scenario-awarded")
    assert page.locator(".award-row").count() == 0

    # Northwind sees its one reservation, for lot 3, and nothing of Rival Cloud's lots.
    northwind = login_as(new_page(), provider.user.username)
    northwind.goto(f"{live_server.url}/requests/{worked.pk}/")
    panel = northwind.inner_text("#reservation-panel")
    assert "Rival Cloud" not in panel
    northwind.click("#reservation-link")
    assert "3: Inference" in northwind.inner_text("#reservation-lot")
    rival_lot = Reservation.objects.get(request=worked, lot__number=1)
    response = northwind.goto(f"{live_server.url}/reservations/{rival_lot.pk}/")
    assert response is not None and response.status == 404

    # Rival Cloud's bid page links its two reservations; Cirrus reads its debrief.
    rival = login_as(new_page(), rival_provider.user.username)
    rival.goto(f"{live_server.url}/bids/{rival_lot.bid_id}/")
    links = rival.locator("#reservation-links li").all_inner_texts()
    assert len(links) == 2 and "lot 1" in links[0] and "lot 2" in links[1]

    # The new lists fit a 390 px phone without sideways scrolling.
    phone = {"viewport": PHONE, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
    small = login_as(new_page(**phone), buyer.user.username)
    for path in (f"/requests/{worked.pk}/", f"/requests/{worked.pk}/scenarios/"):
        _fits(small, live_server.url + path)
    small = login_as(new_page(**phone), rival_provider.user.username)
    _fits(small, f"{live_server.url}/bids/{rival_lot.bid_id}/")
    _fits(small, f"{live_server.url}/reservations/{rival_lot.pk}/")
