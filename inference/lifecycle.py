"""Who measures a served inference workload: either party to an accepted reservation (any buyer
role; the provider's engineer, approver or admin) uploads a served-responses file and retries
one whose reading failed. Only an accepted reservation serves anything."""

from __future__ import annotations

from typing import Any

from acceptance.models import Reservation, ReservationStatus
from bids.lifecycle import ROLE_LABELS
from core.lifecycle import Decision, Lifecycle, Move
from incidents.lifecycle import EITHER_TEAM, reservation_actor

ACCEPTED = frozenset({ReservationStatus.ACCEPTED})

SERVED: Lifecycle[Reservation] = Lifecycle(
    name="reservation",
    status_of=lambda r: r.status,
    status_label=lambda r: r.get_status_display(),
    role_labels=ROLE_LABELS,
    moves=[
        Move("served_upload", "Upload served responses", "either", EITHER_TEAM, ACCEPTED,
             verb="given served responses"),
        Move("served_retry", "Retry reading served responses", "either", EITHER_TEAM, ACCEPTED,
             verb="retried"),
    ],
)  # fmt: skip


def served_move(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return SERVED.require(reservation, name, actor=reservation_actor(reservation, user))


def served_decision(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return SERVED.decide(reservation, name, actor=reservation_actor(reservation, user))


def uploader_party(reservation: Reservation, *, user: Any) -> str:
    roles = reservation_actor(reservation, user).roles
    return "buyer" if "buyer" in roles else "provider"
