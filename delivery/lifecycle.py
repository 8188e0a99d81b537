"""Who announces maintenance and who agrees to it: the provider's team announces on an accepted
reservation; a short-notice window counts as downtime until a buyer approver or admin agrees."""

from __future__ import annotations

from typing import Any

from acceptance.models import Reservation, ReservationStatus
from bids.lifecycle import PROVIDER_TEAM, ROLE_LABELS
from core.lifecycle import Decision, Lifecycle, Move
from delivery.models import MaintenanceWindow
from incidents.lifecycle import reservation_actor
from orgs.choices import MemberRole

BUYER_SIGNERS = frozenset({MemberRole.APPROVER, MemberRole.ADMIN})

ANNOUNCING: Lifecycle[Reservation] = Lifecycle(
    name="reservation",
    status_of=lambda r: r.status,
    status_label=lambda r: r.get_status_display(),
    role_labels=ROLE_LABELS,
    moves=[
        Move("announce", "Announce maintenance", "provider", PROVIDER_TEAM,
             frozenset({ReservationStatus.ACCEPTED}), verb="given maintenance"),
    ],
)  # fmt: skip

WINDOW: Lifecycle[MaintenanceWindow] = Lifecycle(
    name="maintenance window",
    status_of=lambda w: w.state,
    status_label=lambda w: {"planned": "announced with notice", "awaiting": "awaiting the buyer",
                            "agreed": "agreed"}[w.state],
    role_labels=ROLE_LABELS,
    moves=[
        Move("agree", "Agree to short-notice maintenance", "buyer", BUYER_SIGNERS,
             frozenset({"awaiting"}), verb="agreed to"),
    ],
)  # fmt: skip


def announce_decision(reservation: Reservation, *, user: Any) -> Decision[Reservation]:
    return ANNOUNCING.decide(reservation, "announce", actor=reservation_actor(reservation, user))
