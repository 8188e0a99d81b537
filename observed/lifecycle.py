"""Who records what was observed: either party to an accepted reservation uploads the
scheduler's records, node snapshots and result files, and retries a file that could not be read;
the buyer alone names the result its cost is counted in."""

from __future__ import annotations

from typing import Any

from acceptance.models import Reservation, ReservationStatus
from bids.lifecycle import BUYER_TEAM, ROLE_LABELS
from core.lifecycle import Decision, Lifecycle, Move
from incidents.lifecycle import EITHER_TEAM, reservation_actor

ACCEPTED = frozenset({ReservationStatus.ACCEPTED})

OBSERVED: Lifecycle[Reservation] = Lifecycle(
    name="reservation",
    status_of=lambda r: r.status,
    status_label=lambda r: r.get_status_display(),
    role_labels=ROLE_LABELS,
    moves=[
        Move("observed_upload", "Upload what the workload observed", "either", EITHER_TEAM,
             ACCEPTED, verb="given observed records"),
        Move("observed_retry", "Read an observed file again", "either", EITHER_TEAM, ACCEPTED,
             verb="retried an observed file"),
        Move("observed_result", "Name the result the cost is counted in", "buyer", BUYER_TEAM,
             ACCEPTED, verb="named the result"),
    ],
)  # fmt: skip


def observed_move(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return OBSERVED.require(reservation, name, actor=reservation_actor(reservation, user))


def observed_decision(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return OBSERVED.decide(reservation, name, actor=reservation_actor(reservation, user))


def observed_party(reservation: Reservation, *, user: Any) -> str:
    return "provider" if "provider" in reservation_actor(reservation, user).roles else "buyer"
