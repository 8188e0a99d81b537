"""Pages whose tables hold long unbroken values (hashes, file names, a wide preview) stay
within a laptop's width: the value wraps in its cell, or the table scrolls in its own box."""

from __future__ import annotations

import pytest

from bids.audit import record_request
from billing import services as billing
from tests.billing.conftest import contracted, media_root, usage_file

__all__ = ["contracted", "media_root"]  # fixtures: an accepted reservation; temporary media
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}


def _width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_the_audit_log_wraps_a_hash_and_a_long_file_name(
    live_server, new_page, login_as, world, buyer
):
    name = (
        "diag_r3_fail_early_8xh100_gpu_memory_fail_cuinit_dcgm3.3.8_nccltests264"
        "_rerun_after_the_cable_swap.txt"
    )
    record_request(
        capacity_request=world.request,
        action="burnin.evidence_upload",
        user=buyer.user,
        after={"file": name, "sha256": "b4be4dd4f178" * 5 + "a1b2", "node": None},
    )
    page = login_as(new_page(viewport=LAPTOP), "alice")
    for path in ("/audit/", f"/requests/{world.request.pk}/"):
        page.goto(f"{live_server.url}{path}")
        assert name in page.inner_text("main")
        assert _width(page) <= LAPTOP["width"], path


def test_the_usage_mapping_preview_scrolls_in_its_card(
    live_server, new_page, login_as, contracted, buyer, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        upload = billing.usage_upload(
            reservation=contracted.reservation,
            user=buyer.user,
            upload=usage_file("usage_planted.csv"),
        )
    page = login_as(new_page(viewport=LAPTOP), "alice")
    page.goto(f"{live_server.url}/usage/{upload.pk}/mapping/")
    assert "gpu-b01" in page.inner_text("#mapping-preview")
    assert _width(page) <= LAPTOP["width"]
