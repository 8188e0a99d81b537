"""Availability and maintenance by API: the page's figures and formulas, field errors named."""

from __future__ import annotations

import pytest

from delivery.models import MaintenanceWindow
from incidents.services.opening import incident_open_signal
from tests.api.v1.conftest import token_client
from tests.delivery.helpers import example_reservation, utc

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_the_availability_carries_each_figure_with_its_formula(buyer, provider, rival_provider):
    reservation = example_reservation(buyer, provider)
    incident_open_signal(
        reservation=reservation, user=provider.user, severity="S1", nodes="gpu-01 gpu-02",
        window_start=utc(1, 10, 8), signal="alert", summary="Down", now=utc(1, 10, 8),
    )  # fmt: skip
    url = f"/api/v1/reservations/{reservation.pk}/availability/"
    body = token_client(buyer.user).get(url).json()
    assert body == token_client(provider.user).get(url).json()
    jan = body["report"]["months"][0]
    assert jan["month"] == "2026-01"
    assert jan["scheduled_node_hours"]["value"] == "2976.0000"
    assert "scheduled node-h" in jan["availability_pct"]["formula"]
    assert body["lanes"][:2] == ["gpu-01", "gpu-02"]
    assert token_client(rival_provider.user).get(url).status_code == 404


def test_an_announcement_with_the_end_before_the_start_names_the_field(buyer, provider):
    reservation = example_reservation(buyer, provider)
    response = token_client(provider.user).post(
        f"/api/v1/reservations/{reservation.pk}/maintenance/",
        {"starts_at": "2026-03-20T04:00:00Z", "ends_at": "2026-03-20T02:00:00Z",
         "reason": "Firmware"},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert "ends_at" in str(response.json())
    assert not MaintenanceWindow.objects.exists()
