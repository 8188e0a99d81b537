"""The fixture editor's GPU monitor settings: the temperature limits start empty (not judged)
and are saved with their reasons, and the dmon capture can be made a required file."""

from __future__ import annotations

import pytest
from django.urls import reverse

from acceptance.models import Fixture
from tests.acceptance.pages.builders import fixture_post_data

pytestmark = pytest.mark.django_db

MEMORY = "thresholds__memory_temp_limit_c"


def test_a_memory_temperature_limit_and_the_capture_are_agreed(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    html = buyer.client().get(url).content.decode()
    assert "Memory temperature (nvidia-smi dmon) below" in html
    assert "Empty: no memory temperature check." in html
    required = [*fx.version.spec["required_evidence"], "nvidia-smi-dmon"]
    data = fixture_post_data(
        fx.version,
        required_evidence=required,
        **{MEMORY: "85", f"reason__{MEMORY}": "HBM3e throttles above 85 C on this chassis"},
    )
    response = buyer.client().post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    spec = Fixture.objects.get(pk=fx.version.fixture_id).versions.order_by("-number")[0].spec
    assert spec["thresholds"]["memory_temp_limit_c"] == 85
    assert "gpu_temp_limit_c" not in spec["thresholds"]  # left empty: not agreed
    assert "nvidia-smi-dmon" in spec["required_evidence"]
    override = next(o for o in spec["overrides"] if o["field"] == "thresholds.memory_temp_limit_c")
    assert (override["default"], override["value"]) == (None, 85)
