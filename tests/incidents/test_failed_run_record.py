"""A failed-run upload is checked against the fixture's failure record: what it lacks is listed
on the analysis page and in the API, and the analysis runs all the same (a gap is never a
refusal). The synthetic cascade is a Slurm job's logs without its launch command, rank map or
Flight Recorder dumps."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from incidents import services
from incidents.models import FailedRunState
from tests.api.v1.conftest import token_client
from tests.incidents.helpers import accepted, analysed, scenario_upload

__all__ = ["accepted", "analysed"]
pytestmark = pytest.mark.django_db


def _keys(gaps: list[dict[str, Any]]) -> list[str]:
    return [g["key"] for g in gaps]


def test_the_gaps_are_listed_on_the_page_and_the_analysis_still_runs(analysed, buyer):
    assert analysed.state == FailedRunState.ANALYSED and analysed.analysis["first_failure"]
    assert analysed.analysis["inputs"]["scheduler_output"] == ["slurm-4242.out"]
    page = buyer.client().get(reverse("incidents:failed-run-detail", args=[analysed.pk]))
    html = page.content.decode()
    assert "Against the fixture's failure record" in html
    assert '<li data-key="launch_command"><strong>Launch command</strong>: No file shows' in html
    assert 'data-key="flight_recorder_dumps"' in html and "TORCH_NCCL_TRACE_BUFFER_SIZE" in html
    assert 'data-key="scheduler_output"' not in html  # the Slurm output is in the bundle


def test_the_api_lists_the_gaps_and_a_rank_map_beside_the_bundle_fills_one(
    accepted, provider, buyer, django_capture_on_commit_callbacks
):
    rank_map = SimpleUploadedFile("rank_map.csv", b"rank,node\n0,node-0\n1,node-0\n")
    with django_capture_on_commit_callbacks(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation,
            user=provider.user,
            uploads=[scenario_upload()],
            rank_map=rank_map,
        )
    body = token_client(buyer.user).get(f"/api/v1/failed-runs/{run.pk}/").json()
    assert body["state"] == "analysed"
    assert _keys(body["record_missing"]) == ["launch_command", "flight_recorder_dumps"]
    assert body["record_missing"][0]["label"] == "Launch command"
    listed = token_client(provider.user).get("/api/v1/failed-runs/").json()["results"]
    assert _keys(listed[0]["record_missing"]) == ["launch_command", "flight_recorder_dumps"]
