"""Who announces maintenance and who agrees to it: the provider's team announces on an accepted
reservation; a short-notice window counts as downtime until a buyer approver or admin agrees.
A planned change is announced by the provider's team too; the buyer's team accepts it or
objects to it until its window opens."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from acceptance.models import Reservation, ReservationStatus
from bids.lifecycle import BUYER_TEAM, PROVIDER_TEAM, ROLE_LABELS
from core.lifecycle import Decision, Lifecycle, Move
from delivery.models import MaintenanceWindow, PlannedChange
from incidents.lifecycle import reservation_actor
from incidents.models import ChangeStatus
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
        Move("announce_change", "Announce a planned change", "provider", PROVIDER_TEAM,
             frozenset({ReservationStatus.ACCEPTED}), verb="given a planned change"),
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


CHANGE_STATES = {
    "announced": "announced, awaiting the buyer",
    "accepted": "accepted by the buyer",
    "objected": "objected to by the buyer",
    "opened": "in or past its window",
}


def change_state(change: PlannedChange) -> str:
    """The window's opening ends the buyer's say; before it, the change log entry's status."""
    if change.opened_at is not None or timezone.now() >= change.window.starts_at:
        return "opened"
    answered = {ChangeStatus.APPROVED.value: "accepted", ChangeStatus.DECLINED.value: "objected"}
    return answered.get(change.entry.status, "announced")


CHANGE: Lifecycle[PlannedChange] = Lifecycle(
    name="planned change",
    status_of=change_state,
    status_label=lambda c: CHANGE_STATES[change_state(c)],
    role_labels=ROLE_LABELS,
    moves=[
        Move("accept", "Accept the planned change", "buyer", BUYER_TEAM,
             frozenset({"announced"}), verb="accepted"),
        Move("object", "Object to the planned change", "buyer", BUYER_TEAM,
             frozenset({"announced", "accepted"}), verb="objected to"),
    ],
)  # fmt: skip


def change_decisions(change: PlannedChange, *, user: Any) -> dict[str, Decision[PlannedChange]]:
    return CHANGE.decisions(change, actor=reservation_actor(change.reservation, user))


def announce_decision(reservation: Reservation, *, user: Any) -> Decision[Reservation]:
    return ANNOUNCING.decide(reservation, "announce", actor=reservation_actor(reservation, user))
