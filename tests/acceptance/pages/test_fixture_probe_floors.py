"""The fixture editor's pilot probe floors: empty by default (no probe judged), set with a reason
and recorded as an override, and a floor of zero or below named by its field."""

from __future__ import annotations

import pytest
from django.urls import reverse

from acceptance.models import Fixture
from tests.acceptance.pages.builders import fixture_post_data

pytestmark = pytest.mark.django_db

HOST = "thresholds__host_device_gbps_min"
P99 = "thresholds__fabric_p99_latency_us_max"


def _current(fx):
    return Fixture.objects.get(pk=fx.version.fixture_id).versions.order_by("-number").first()


def test_the_floors_start_empty_and_are_saved_with_their_reasons(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    html = buyer.client().get(url).content.decode()
    assert "Pilot: slowest host-device copy (nvbandwidth) at least" in html
    assert "Empty: no nvbandwidth check." in html
    data = fixture_post_data(
        fx.version,
        **{
            HOST: "45",
            f"reason__{HOST}": "PCIe Gen5 x16 host links, measured 55 GB/s in the pilot",
            P99: "3.5",
            f"reason__{P99}": "Tail latency the all-reduce tolerates",
        },
    )
    response = buyer.client().post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    spec = _current(fx).spec
    assert spec["thresholds"]["host_device_gbps_min"] == 45
    assert spec["thresholds"]["fabric_p99_latency_us_max"] == 3.5
    override = next(o for o in spec["overrides"] if o["field"] == "thresholds.host_device_gbps_min")
    assert (override["default"], override["value"]) == (None, 45)
    assert override["reason"].startswith("PCIe Gen5")


def test_a_floor_of_zero_is_named_and_what_was_typed_stays(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(fx.version, name="Typed name", **{HOST: "0"})
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    assert response.context["form"].errors[HOST] == [
        "Ensure this value is greater than or equal to 0.01."
    ]
    assert 'value="Typed name"' in response.content.decode()
