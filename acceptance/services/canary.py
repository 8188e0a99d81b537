"""Release canary writes: the canary and its one run. Its evidence then goes through the burn-in
services (`services.burnin`) on that run: stored before it is parsed, parsed and checked by the
same workers, retried and reaped the same way."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User

from acceptance.models import BurnInRun, Canary, Reservation


def canary_create(
    *,
    reservation: Reservation,
    user: User,
    nodes: Sequence[str],
    closes_at: datetime,
    label: str,
    driver_version: str = "",
) -> Canary:
    """A canary on `nodes` (the caller checked they are a proper subset), open until
    `closes_at`, with the run its evidence goes to; `driver_version` is the driver its nodes
    must show (a driver change's new version), "" to check the fixture's."""
    canary = Canary.objects.create(
        reservation=reservation, nodes=list(nodes), closes_at=closes_at, created_by=user,
        driver_version=driver_version.strip(),
    )  # fmt: skip
    BurnInRun.objects.create(canary=canary, label=label[:120], created_by=user)
    return canary
