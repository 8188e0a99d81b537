"""In a real browser: the buyer opens the reservation page and the Delivery panel draws the
timeline, one lane per node, from our own plotly.js, without a script error."""

from __future__ import annotations

import pytest

from incidents.services.opening import incident_open_signal
from tests.delivery.helpers import example_reservation, utc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_timeline_draws_each_node_as_a_lane(live_server, new_page, login_as, buyer, provider):
    reservation = example_reservation(buyer, provider)
    incident_open_signal(
        reservation=reservation, user=provider.user, severity="S3", nodes="gpu-03",
        window_start=utc(2, 5, 10), signal="alert", summary="Node out", now=utc(2, 5, 10),
    )  # fmt: skip
    page = login_as(new_page(), "alice")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{live_server.url}/reservations/{reservation.pk}/")
    page.wait_for_selector("#delivery-timeline .main-svg")
    lanes = page.inner_text("#delivery-timeline")
    assert "gpu-03" in lanes and "node 3" in lanes
    page.click("#delivery-months tbody tr:nth-child(2) td:nth-child(2) summary")
    assert "scheduled node-h" in page.inner_text("#delivery-months tbody tr:nth-child(2)")
    assert not errors
