"""The notices a reservation sends: a burn-in verdict to the buyer (the moment the buyer can
decide), and the decision to the awarded provider. Nobody else is a party to a reservation."""

from __future__ import annotations

from django.urls import reverse

from acceptance.models import Acceptance, BurnInRun, DecisionKind, Reservation
from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members


def acceptance_requested_notify(*, run: BurnInRun) -> list[Notice]:
    """A run's checks reached a verdict on a pending reservation: the buyer may decide now.

    Not while required evidence is still missing: files arrive one by one, and a run checked
    half-uploaded is not ready for a decision. Then once per run and outcome: the buyer hears
    of a pass once and of a failure once, however often the run is re-checked."""
    reservation: Reservation = run.reservation
    if not reservation.is_pending or run.gate_passed is None:
        return []
    if not run.gate_passed and run.checks.filter(mandatory=True, status="missing").exists():
        return []
    request = reservation.request
    provider = reservation.bid.provider.name
    if run.gate_passed:
        subject = f"{run.label} passed the gate: accept or reject “{request.title}”"
        verdict = "passed every blocking check"
    else:
        subject = f"{run.label} failed the gate on “{request.title}”"
        verdict = f"failed the gate ({run.gate_summary})" if run.gate_summary else "failed the gate"
    return notify_members(
        event=Event.ACCEPTANCE_REQUESTED,
        organization=request.buyer,
        subject=subject,
        body=(
            f"{provider}'s burn-in run “{run.label}” for “{request.title}” {verdict}. "
            "The reservation waits for your decision: accept it (its clock starts) or reject it."
        ),
        path=reverse("burnin:run-detail", args=[run.pk]),
        key=f"acceptance-request:{run.pk}:{'pass' if run.gate_passed else 'fail'}",
    )


def acceptance_decided_notify(*, decision: Acceptance) -> list[Notice]:
    reservation = decision.reservation
    request = reservation.request
    outcome = {
        DecisionKind.ACCEPTED: "accepted",
        DecisionKind.OVERRIDE: "accepted over a failing gate",
        DecisionKind.REJECTED: "rejected",
    }.get(DecisionKind(decision.kind), str(decision.kind))
    reason = f" Reason: {decision.reason}" if decision.reason else ""
    return notify_members(
        event=Event.ACCEPTANCE_DECIDED,
        organization=reservation.bid.provider,
        subject=f"{request.buyer.name} {outcome} the reservation for “{request.title}”",
        body=f"{request.buyer.name} {outcome} the reservation for “{request.title}”.{reason}",
        path=reverse("burnin:reservation-detail", args=[reservation.pk]),
        key=f"acceptance-decision:{decision.pk}",
    )
