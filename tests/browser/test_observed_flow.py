"""The Observed page in a browser: the provider's records are read, the buyer uploads the result
file and names the accepted step, the chart draws the four capacities beside their table, and
on a 390 px phone the page never scrolls sideways."""

from __future__ import annotations

import pytest
from django.urls import reverse

from observed import services
from tests.evaluation.pages.test_phone_layout import PHONE, _fits
from tests.incidents.helpers import media_root
from tests.observed.helpers import DATA, NODE_FILES, data_file, worked_reservation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
__all__ = ["media_root"]  # autouse: uploads are written to a temporary MEDIA_ROOT


def test_the_buyer_uploads_results_names_the_step_and_reads_the_chart(
    live_server, new_page, login_as, buyer, provider
):
    reservation = worked_reservation(buyer, provider)
    services.observed_upload(reservation=reservation, user=provider.user, kind="kueue",
                             upload=data_file("kueue-workloads-events.json"))  # fmt: skip
    for name in NODE_FILES:
        services.observed_upload(reservation=reservation, user=provider.user, kind="kube_nodes",
                                 upload=data_file(name))  # fmt: skip
    url = live_server.url + reverse("observed:page", args=[reservation.pk])
    page = login_as(new_page(), "alice")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.select_option("#id_kind", "results")
    page.set_input_files("#id_file", str(DATA / "results.csv"))
    page.click("#observed-upload-form button[type=submit]")
    page.wait_for_selector("#observed-uploads .status-done >> nth=5")
    page.select_option("#id_unit", "step")
    page.fill("#id_expected_per_gpu_hour", "1.25")
    page.click("#result-form button[type=submit]")
    page.wait_for_selector("#observed-capacities .main-svg")
    assert "2026-03-03 16.00 14.00 14.00 4.00" in " ".join(
        page.inner_text("#capacities-table").split()
    )
    cost = page.inner_text("#cost-per-result")
    assert "391 accepted training steps = $4.9105" in cost
    # The award's scoring predicted a cost per useful GPU-hour: over the 1.25 steps expected.
    assert "1.25 accepted training steps expected per GPU-hour = $2.0313" in cost
    assert "Use: the jobs ran on 420.80 of the 768.00 useful GPU-hours (54.79 %)" in cost
    assert not errors
    phone = {"viewport": PHONE, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
    _fits(login_as(new_page(**phone), "nora"), url)
