"""Pilots in an organisation's export: the buyer's archive holds every pilot on its request,
each provider's its own pilot only (invitation, run, files as uploaded, checks, the figures
claimed beside verified), and an organisation outside the request none."""

from __future__ import annotations

from typing import Any

import pytest

from ops.models import ExportStatus
from tests.acceptance.pilot.helpers import invite, run_pilot, shortlist_both
from tests.ops.export_helpers import Archive, export_of, job_archive

pytestmark = pytest.mark.django_db

DATA = "tests/data/evidence/"
OURS = "perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt"
THEIRS = "perftest/ib_write_lat_percentiles_three_sizes.txt"


@pytest.fixture
def piloted(world: Any, buyer: Any, provider: Any, rival_provider: Any, capture: Any) -> Any:
    shortlist_both(world, buyer)
    world.pilot = invite(world.bid, buyer, instructions="Run ours.py on all 16 GPUs.")
    world.rival_pilot = invite(world.rival_bid, buyer, instructions="Run theirs.py on 8 GPUs.")
    run_pilot(world.pilot, provider.user, capture, [(OURS, "gpu-a01")])
    run_pilot(world.rival_pilot, rival_provider.user, capture, [(THEIRS, "gpu-b01")])
    return world


@pytest.fixture
def capture(django_capture_on_commit_callbacks: Any) -> Any:
    return django_capture_on_commit_callbacks


def _archive(role: Any, capture: Any) -> Archive:
    job = export_of(role, capture)
    assert job.status == ExportStatus.DONE, job.error
    return job_archive(job)


def _bytes(name: str) -> bytes:
    with open(DATA + name, "rb") as handle:
        return handle.read()


def test_the_provider_exports_its_own_pilot_with_its_files_and_figures(
    piloted: Any, provider: Any, capture: Any
) -> None:
    archive = _archive(provider, capture)
    [pilot] = archive.json("pilots.json")
    assert (pilot["id"], pilot["bid_id"]) == (piloted.pilot.pk, piloted.bid.pk)
    assert pilot["instructions"] == "Run ours.py on all 16 GPUs."
    [run] = archive.json("pilot_runs.json")
    assert run["pilot_id"] == pilot["id"] and run["reservation_id"] is None
    [evidence] = archive.json("pilot_evidence.json")
    assert evidence["original_name"] == OURS.split("/")[-1] and evidence["node"] == "gpu-a01"
    assert archive.zip.read(evidence["file"]) == _bytes(OURS)  # as uploaded, byte for byte
    assert archive.json("pilot_checks.json")
    figures = {row["key"]: row for row in archive.json("pilot_figures.json")}
    fabric = figures["fabric_bandwidth"]
    assert fabric["pilot_id"] == pilot["id"]
    assert fabric["verified"] == pytest.approx(198, abs=1) and fabric["claimed"] is not None
    assert fabric["evidence_id"] == evidence["id"] and fabric["source"]["line"]
    assert figures["app_step_time"]["verified"] is None  # not measured by this pilot
    # Nothing of the rival's pilot: not its invitation, its file or its bytes.
    everything = archive.text()
    assert b"theirs.py" not in everything and _bytes(THEIRS) not in everything
    readme = archive.zip.read("README.md").decode()
    assert "### `pilot_figures.json` (5 rows)" in readme and "`verified`:" in readme


def test_the_buyer_exports_every_pilot_on_its_request(
    piloted: Any, buyer: Any, capture: Any
) -> None:
    archive = _archive(buyer, capture)
    pilots = {row["bid_id"]: row for row in archive.json("pilots.json")}
    assert set(pilots) == {piloted.bid.pk, piloted.rival_bid.pk}
    files = {row["original_name"]: row["file"] for row in archive.json("pilot_evidence.json")}
    for name in (OURS, THEIRS):
        assert archive.zip.read(files[name.split("/")[-1]]) == _bytes(name)
    verified = {
        (row["pilot_id"], row["key"]): row["verified"] for row in archive.json("pilot_figures.json")
    }
    assert verified[(piloted.pilot.pk, "fabric_bandwidth")] == pytest.approx(198, abs=1)
    assert verified[(piloted.rival_pilot.pk, "fabric_p99_latency")] is not None


def test_the_rival_and_an_outsider_read_no_other_pilot(
    piloted: Any, rival_provider: Any, outsider: Any, capture: Any
) -> None:
    rival = _archive(rival_provider, capture)
    assert [row["id"] for row in rival.json("pilots.json")] == [piloted.rival_pilot.pk]
    assert b"ours.py" not in rival.text() and _bytes(OURS) not in rival.text()
    other = _archive(outsider, capture)
    for table in ("pilots", "pilot_runs", "pilot_evidence", "pilot_checks", "pilot_figures"):
        assert other.json(f"{table}.json") == [], table
