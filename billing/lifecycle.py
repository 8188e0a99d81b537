"""Who reconciles usage: either party to an accepted reservation (any buyer role; the provider's
engineer, approver or admin) uploads the provider's usage or invoice lines, sets the column
mapping and retries a reconciliation that failed. Only an accepted reservation has a term to
check lines against.

The provider's saved mapping is the provider's: a provider member's mapping is saved for its
later files, while a buyer's applies to the one file it was set on (`usage_party`)."""

from __future__ import annotations

from typing import Any

from acceptance.models import Reservation, ReservationStatus
from bids.lifecycle import ROLE_LABELS
from core.lifecycle import Decision, Lifecycle, Move
from incidents.lifecycle import EITHER_TEAM, reservation_actor

ACCEPTED = frozenset({ReservationStatus.ACCEPTED})

USAGE: Lifecycle[Reservation] = Lifecycle(
    name="reservation",
    status_of=lambda r: r.status,
    status_label=lambda r: r.get_status_display(),
    role_labels=ROLE_LABELS,
    moves=[
        Move(
            "usage_upload",
            "Upload usage or invoice lines",
            "either",
            EITHER_TEAM,
            ACCEPTED,
            verb="given usage lines",
        ),
        Move(
            "usage_map",
            "Set the usage column mapping",
            "either",
            EITHER_TEAM,
            ACCEPTED,
            verb="given a usage mapping",
        ),
        Move(
            "usage_retry",
            "Retry a reconciliation",
            "either",
            EITHER_TEAM,
            ACCEPTED,
            verb="retried a reconciliation",
        ),
    ],
)


def usage_move(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return USAGE.require(reservation, name, actor=reservation_actor(reservation, user))


def usage_decision(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return USAGE.decide(reservation, name, actor=reservation_actor(reservation, user))


def usage_party(reservation: Reservation, *, user: Any) -> str:
    """'provider' for a member of the awarded provider, else 'buyer' (the move checked the rest)."""
    return "provider" if "provider" in reservation_actor(reservation, user).roles else "buyer"
