"""Shared set-up for pilot tests: a request closed with both bids shortlisted in a final round
that closed early (the bids are visible), a fixture attached, and a pilot's evidence set."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.utils import timezone

from acceptance.models import BurnInRun, Evidence, Fixture, Pilot
from acceptance.services.pilot import pilot_invite
from bids.services import request_close
from bids.services.final_round import final_round_open
from tests.acceptance.burnin.helpers import attach_fixture, two_node_spec, upload_all

# What a pilot runs: the fixture and the application run on the whole allocation, the
# topology, nvbandwidth and the fabric probes on one node. (file under tests/data/evidence, node)
PILOT_SET: list[tuple[str, str]] = [
    ("burnin/fixture-result/fixture_16ranks.jsonl", ""),
    ("burnin/nccl-tests/all_reduce_2node_pass.txt", ""),
    ("burnin/step-times/step_times_16ranks.csv", ""),
    ("burnin/gpu-a01/nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt", "gpu-a01"),
    ("nvbandwidth/nvbandwidth_v0.8_8xh100_h2d_d2h_d2d_read_ce.txt", "gpu-a01"),
    ("perftest/ib_write_bw_two_hcas_mlx5_1_at_198gbits.txt", "gpu-a01"),
    ("perftest/ib_write_lat_percentiles_three_sizes.txt", "gpu-a01"),
]


def shortlist_both(world: Any, buyer: Any) -> None:
    """Close, shortlist both bids for a best-and-final round, and close that round early (with
    the two-node fixture attached first, unless the request has one)."""
    if not Fixture.objects.filter(request=world.request).exists():
        attach_fixture(world.request, two_node_spec())
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    final_round_open(
        capacity_request=world.request,
        user=buyer.user,
        shortlist=[world.bid.pk, world.rival_bid.pk],
        bid_deadline=timezone.now() + timedelta(days=3),
        confirmed=True,
    )
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    for obj in (world.request, world.bid, world.rival_bid):
        obj.refresh_from_db()


def invite(bid: Any, buyer: Any, **kwargs: Any) -> Pilot:
    start = date.today() + timedelta(days=1)
    return pilot_invite(
        bid=bid,
        user=buyer.user,
        starts_on=kwargs.pop("starts_on", start),
        ends_on=kwargs.pop("ends_on", start + timedelta(days=2)),
        instructions=kwargs.pop("instructions", "Run train.py --steps 200 on all 16 GPUs."),
    )


def run_pilot(
    pilot: Pilot, user: Any, capture: Any, files: list[tuple[str, str]] | None = None
) -> list[Evidence]:
    run = BurnInRun.objects.get(pilot=pilot)
    evidence = upload_all(run, user, files or PILOT_SET, capture)
    pilot.refresh_from_db()
    return evidence
