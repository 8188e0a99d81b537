"""The burn-in run page at a laptop's width: a long evidence file name wraps inside its cell
instead of widening the checks table past the screen."""

from __future__ import annotations

import pytest

from tests.acceptance.burnin.helpers import DATA, awarded, media_root, upload

__all__ = ["awarded", "media_root"]  # fixtures: an awarded request with a run; temporary media
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1280, "height": 900}


def test_a_long_evidence_file_name_keeps_the_run_page_within_the_screen(
    live_server, new_page, login_as, awarded, provider, django_capture_on_commit_callbacks
):
    slow = (DATA / "burnin/nccl-tests/all_reduce_2node_slow.txt").read_bytes()
    name = (
        "all_reduce_2node_16xh100_mpirun_srun_label_validation_wrong_NA_low_bw_nccltests290"
        "_gcp_a3mega_rerun_after_cable_swap.txt"
    )
    with django_capture_on_commit_callbacks(execute=True):
        upload(awarded.run, provider.user, name, content=slow)

    page = login_as(new_page(viewport=LAPTOP), "nora")
    page.goto(f"{live_server.url}/runs/{awarded.run.pk}/")
    assert name in page.inner_text("#checks")
    assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
