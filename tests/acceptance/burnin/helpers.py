"""Shared set-up for burn-in and API tests: an awarded request with a run, and uploads."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from acceptance.models import BurnInRun, Evidence, Fixture, FixtureVersion, Reservation
from acceptance.services import burnin as services
from acceptance.services.award import request_award
from bids.models import Bid, CapacityRequest
from bids.services import request_close
from engine.evidence.fixtures import spec_sha256

DATA = Path(__file__).resolve().parents[2] / "data" / "evidence"
# Evidence files live under DATA / "burnin" / <kind>; the fixture spec beside the data.
BURNIN = DATA.parent / "burnin"

# A complete, passing evidence set for the two-node spec: (file under tests/data/evidence, node).
# Per-node files are as collect_evidence.sh leaves them, under burnin/<node>/: the tool output
# under the collector's header naming that node and host, so no two nodes share a file (the
# same bytes under two node labels is a finding that blocks the gate).
GOOD_SET: list[tuple[str, str]] = [
    ("burnin/fixture-result/fixture_16ranks.jsonl", ""),
    ("burnin/nccl-tests/all_reduce_2node_pass.txt", ""),
    ("burnin/step-times/step_times_16ranks.csv", ""),
] + [
    (f"burnin/{node}/{name}", node)
    for node in ("gpu-a01", "gpu-a02")
    for name in (
        "nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt",
        "nvidia-smi-query/table_wide_8xh200_drv560.txt",
        "dcgmi-diag/diag_r3_dcgm3_all_pass.txt",
        "ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt",
    )
]


def two_node_spec() -> dict[str, Any]:
    return json.loads((BURNIN / "fixture_spec_2node.json").read_text())


@dataclass
class Awarded:
    request: CapacityRequest
    bid: Bid
    rival_bid: Bid
    reservation: Reservation
    run: BurnInRun
    evidence: Evidence | None = None


def attach_fixture(request: CapacityRequest, spec: dict[str, Any]) -> FixtureVersion:
    fixture = Fixture.objects.create(request=request)
    return FixtureVersion.objects.create(
        fixture=fixture,
        number=1,
        template="rank-sum-allreduce",
        spec=spec,
        spec_sha256=spec_sha256(spec),
        manifest={},
    )


def award(world: Any, buyer: Any, spec: dict[str, Any] | None = None) -> Awarded:
    attach_fixture(world.request, spec or two_node_spec())
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    run = services.run_create(reservation=reservation, user=buyer.user, label="First burn-in")
    world.bid.refresh_from_db()
    world.rival_bid.refresh_from_db()
    world.request.refresh_from_db()
    return Awarded(world.request, world.bid, world.rival_bid, reservation, run)


def file_upload(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    data = content if content is not None else (DATA / name).read_bytes()
    return SimpleUploadedFile(Path(name).name, data, content_type="text/plain")


def upload(
    run: BurnInRun, user: Any, name: str, node: str = "", content: bytes | None = None
) -> services.EvidenceUpload:
    return services.evidence_upload(
        run=run, user=user, upload=file_upload(name, content), node=node
    )


def upload_all(
    run: BurnInRun, user: Any, files: Iterable[tuple[str, str]], capture: Any
) -> list[Evidence]:
    """Upload and run the queued parse/re-check tasks (in-process) as each commit would."""
    out = []
    with capture(execute=True):
        for name, node in files:
            out.append(upload(run, user, name, node).evidence)
    run.refresh_from_db()
    return out


@pytest.fixture(autouse=True)
def media_root(settings: Any, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def awarded(world: Any, buyer: Any) -> Awarded:
    return award(world, buyer)
