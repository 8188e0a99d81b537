"""The reservation's lifecycle: who starts burn-in runs and uploads evidence, who accepts, who
asks to accept over a failing gate and who approves that, who rejects.

A move is judged on a `Case`: the reservation, the run the move is about (accept and override
work on one run) and the pending override request, if any. While one is pending the reservation
is "awaiting a second approver"; only a buyer-side approver or admin other than the person who
asked may approve or decline it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acceptance.models import BurnInRun, OverrideOutcome, OverrideRequest, Reservation
from acceptance.selectors.override import blocking_checks
from bids.lifecycle import BUYER_TEAM, PROVIDER_TEAM, ROLE_LABELS
from core.lifecycle import Actor, Decision, Lifecycle, Move, Need
from orgs.choices import MemberRole
from orgs.selectors import actor_for

PENDING = "pending"
AWAITING = "awaiting_approval"
ACCEPTED = "accepted"
REJECTED = "rejected"
UNDECIDED = frozenset({PENDING, AWAITING})
EITHER_TEAM = BUYER_TEAM | PROVIDER_TEAM
APPROVERS = frozenset({MemberRole.APPROVER, MemberRole.ADMIN})
STATUS_LABELS = {
    PENDING: "pending acceptance",
    AWAITING: "awaiting a second approver",
    ACCEPTED: "accepted",
    REJECTED: "rejected",
}


@dataclass(frozen=True)
class Case:
    reservation: Reservation
    run: BurnInRun | None = None
    override: OverrideRequest | None = None  # the pending request


def _status(case: Case) -> str:
    status = str(case.reservation.status)
    if status == PENDING and case.override is not None:
        return AWAITING
    return status


def _no_verdict(run: BurnInRun | None) -> str | None:
    if run is None:
        return "Open a burn-in run: the decision rests on one run's verdict."
    if not run.checks_current:
        return (
            "The checks for this run are not up to date with its evidence yet; "
            "wait for the verdict before deciding."
        )
    return None


def _gate_passes(case: Case) -> str | None:
    if reason := _no_verdict(case.run):
        return reason
    assert case.run is not None
    if not case.run.gate_passed:
        return (
            "The gate has not passed. To accept anyway, ask for an override: a second "
            "buyer-side approver must approve it."
        )
    return None


def _gate_fails(case: Case) -> str | None:
    if reason := _no_verdict(case.run):
        return reason
    assert case.run is not None
    if case.run.gate_passed:
        return "The gate passes: accept the reservation instead."
    return None


def _second_person(case: Case, actor: Actor) -> str | None:
    override = case.override
    if override is not None and actor.user_id == override.requested_by_id:
        return (
            "You asked for this override: a second person, a buyer-side approver or "
            "administrator, must decide on it."
        )
    return None


def verdict_changed(override: OverrideRequest, run: BurnInRun) -> str | None:
    """Why the run no longer matches what the override request froze (None when it does)."""
    if not run.checks_current or run.gate_passed:
        return (
            "The run's verdict changed since the override was asked for: decline this request "
            "and ask again on the current verdict."
        )
    current = [c["code"] for c in blocking_checks(run=run)]
    if run.evidence_version != override.evidence_version or current != override.waived_codes:
        return (
            "The run's evidence or its failing checks changed since the override was asked for: "
            "decline this request and ask again on the current verdict."
        )
    return None


def _still_as_asked(case: Case) -> str | None:
    override = case.override
    if override is None:
        return "There is no override request to approve."
    run = case.run if case.run is not None and case.run.pk == override.run_id else override.run
    return verdict_changed(override, run)


RESERVATION: Lifecycle[Case] = Lifecycle(
    name="reservation",
    status_of=_status,
    status_label=lambda c: STATUS_LABELS.get(_status(c), _status(c)),
    role_labels=ROLE_LABELS,
    moves=[
        # Either party may run the burn-in and upload its evidence, as the provider's engineers
        # and the buyer's own checks both do; the decision is the buyer's alone.
        Move("start_run", "Start a burn-in run", "either", EITHER_TEAM, UNDECIDED,
             verb="given a new burn-in run"),
        Move("evidence", "Upload or withdraw burn-in evidence", "either", EITHER_TEAM, UNDECIDED,
             verb="given new evidence"),
        Move("accept", "Accept the reservation", "buyer", BUYER_TEAM, UNDECIDED,
             guard=_gate_passes, verb="accepted"),
        Move("request_override", "Ask to accept over the failing gate", "buyer", BUYER_TEAM,
             frozenset({PENDING}), needs=frozenset({Need.CONFIRM, Need.REASON, Need.APPROVER}),
             guard=_gate_fails, verb="sent for an override"),
        Move("approve_override", "Approve the override", "buyer", APPROVERS,
             frozenset({AWAITING}), who=_second_person,
             guard=_still_as_asked, verb="approved"),
        Move("decline_override", "Decline the override", "buyer", APPROVERS,
             frozenset({AWAITING}), needs=frozenset({Need.REASON}), who=_second_person,
             verb="declined"),
        # A finding on the evidence (the same file for two nodes, another host...) protects
        # the buyer: only a buyer-side approver or admin may explain it away, with a reason.
        Move("explain_finding", "Explain a finding on the evidence", "buyer", APPROVERS,
             UNDECIDED, needs=frozenset({Need.REASON}), verb="given an explanation"),
        Move("reject", "Reject the reservation", "buyer", BUYER_TEAM, UNDECIDED,
             needs=frozenset({Need.REASON}), verb="rejected"),
    ],
)  # fmt: skip


def pending_override(reservation: Reservation) -> OverrideRequest | None:
    return (
        OverrideRequest.objects.filter(reservation=reservation, outcome=OverrideOutcome.PENDING)
        .select_related("requested_by", "run")
        .first()
    )


def case_for(reservation: Reservation, run: BurnInRun | None = None) -> Case:
    return Case(reservation, run, pending_override(reservation))


def reservation_actor(reservation: Reservation, user: Any) -> Actor:
    return actor_for(
        user=user,
        parties={"buyer": reservation.request.buyer_id, "provider": reservation.bid.provider_id},
    )


def reservation_move(case: Case, name: str, *, user: Any) -> Decision[Case]:
    """Raise `MoveRefused` unless `user` may make this move on the reservation now.

    Party, role, state and person only: the override services ask for the confirmation
    themselves, as one of the request's fields, so that every missing part is named at once."""
    return RESERVATION.allow(case, name, actor=reservation_actor(case.reservation, user))


def reservation_decisions(case: Case, *, user: Any) -> dict[str, Decision[Case]]:
    """Every move as this user sees it, for the reservation's and the run's pages."""
    return RESERVATION.decisions(case, actor=reservation_actor(case.reservation, user))
