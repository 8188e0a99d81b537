"""A planned change's world: the worked example's reservation (4 nodes × 8 GPUs, see
tests/delivery/helpers.py) with its term moved around today, its fixture the two-node test spec
widened to its four nodes, its accepted burn-in run holding the passing two-node evidence, and
a maintenance window five days ahead, announced with the 72 h notice the terms ask."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from acceptance.models import BurnInRun, FixtureVersion, Reservation, ReservationStatus
from bids.models import CapacityRequest
from delivery import services
from delivery.changes import change_announce
from delivery.models import MaintenanceWindow, PlannedChange
from engine.evidence.fixtures import spec_sha256
from tests.acceptance.burnin.helpers import GOOD_SET, two_node_spec, upload_all
from tests.delivery.helpers import example_reservation

NODES = "gpu-a01 gpu-a02 gpu-a03 gpu-a04"
CANARY = "gpu-a01 gpu-a02"
# The canary's evidence: the passing two-node set, and the same with the slow all_reduce.
# A driver change's canary shows the new driver (the burn-in's nvidia-smi with the 570 driver).
PASSING = [(name.replace("drv560", "drv570"), node) for name, node in GOOD_SET]
FAILING = [
    ("burnin/nccl-tests/all_reduce_2node_slow.txt", "")
    if name == "burnin/nccl-tests/all_reduce_2node_pass.txt"
    else (name, node)
    for name, node in PASSING
]


@dataclass
class ChangeWorld:
    reservation: Reservation
    window: MaintenanceWindow
    now: datetime


def four_node_spec() -> dict[str, Any]:
    spec = copy.deepcopy(two_node_spec())
    spec["allocation"]["nodes"] = 4
    return spec


def change_world(buyer: Any, provider: Any, capture: Any) -> ChangeWorld:
    reservation = example_reservation(buyer, provider)
    now = timezone.now()
    CapacityRequest.objects.filter(pk=reservation.request_id).update(
        reservation_start=(now - timedelta(days=10)).date(),
        reservation_end=(now + timedelta(days=60)).date(),
    )
    spec = four_node_spec()
    version = FixtureVersion.objects.create(
        fixture=reservation.fixture_version.fixture, number=2, template="rank-sum-allreduce",
        spec=spec, spec_sha256=spec_sha256(spec), manifest={},
    )  # fmt: skip
    # The burn-in evidence goes in while the reservation is pending, as it did before acceptance.
    Reservation.objects.filter(pk=reservation.pk).update(
        fixture_version=version, status=ReservationStatus.PENDING
    )
    reservation.refresh_from_db()
    upload_all(BurnInRun.objects.get(reservation=reservation), buyer.user, GOOD_SET, capture)
    Reservation.objects.filter(pk=reservation.pk).update(
        status=ReservationStatus.ACCEPTED, clock_starts_at=now - timedelta(days=10)
    )
    reservation = Reservation.objects.select_related("request", "bid").get(pk=reservation.pk)
    window = services.maintenance_announce(
        reservation=reservation, user=provider.user, starts_at=now + timedelta(days=5),
        ends_at=now + timedelta(days=5, hours=4), reason="Driver upgrade", now=now,
    )  # fmt: skip
    return ChangeWorld(reservation, window, now)


def announce(world: ChangeWorld, provider: Any, **kwargs: Any) -> PlannedChange:
    values: dict[str, Any] = {
        "reservation": world.reservation, "user": provider.user, "window": world.window,
        "kind": "driver", "component": "NVIDIA driver", "from_version": "560.35.03",
        "to_version": "570.124.06", "nodes": NODES, "canary_nodes": CANARY,
        "description": "Security fix.", "now": world.now,
    }  # fmt: skip
    values.update(kwargs)
    return change_announce(**values)


def upload_canary(change: PlannedChange, user: Any, files: Any, capture: Any) -> BurnInRun:
    run = BurnInRun.objects.get(canary=change.canary)
    upload_all(run, user, files, capture)
    return run
