"""The buyer's decision on a reservation: accept a passing run, or reject. Acceptance over a
failing gate takes two people and lives in services.override; both end in `accept_on_run`.

Accepting starts the term's clock at the later of the acceptance and the term's first day, and
freezes the recovery baseline: the accepted run, or after an override the contracted thresholds
unless the buyer chose the run.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.lifecycle import Case, case_for, reservation_move
from acceptance.models import (
    Acceptance,
    Baseline,
    BaselineSource,
    BurnInRun,
    DecisionKind,
    EvidenceState,
    OverrideOutcome,
    OverrideRequest,
    Reservation,
    ReservationStatus,
)
from acceptance.notices import acceptance_decided_notify
from engine.evidence import burnin_report


def clock_start_for(reservation: Reservation, at: datetime) -> datetime:
    """The later of `at` (the acceptance) and the start of the term's first day, in UTC."""
    term_start = datetime.combine(reservation.term_start, time.min, tzinfo=UTC)
    return max(at, term_start)


def _files(run: BurnInRun) -> list[dict[str, object]]:
    evidence = run.evidence.filter(withdrawn_at__isnull=True, state=EvidenceState.PARSED)
    return [
        {
            "id": e.pk,
            "name": e.original_name,
            "sha256": e.sha256,
            "node": e.node,
            "kind": e.kind,
            "parsed": e.parsed,
        }
        for e in evidence.order_by("pk")
    ]


def lock(reservation: Reservation, run: BurnInRun | None = None) -> Case:
    """The reservation (and run) locked for a decision, with its pending override."""
    locked = (
        Reservation.objects.select_for_update()
        .select_related("request", "bid", "fixture_version")
        .get(pk=reservation.pk)
    )
    if run is not None:
        run = BurnInRun.objects.select_for_update().get(pk=run.pk)
        if run.reservation_id != locked.pk:
            raise ValidationError({"run": ["That run belongs to another reservation."]})
    return case_for(locked, run)


def withdraw_pending(case: Case, *, user: User, why: str) -> None:
    """A decision taken while an override was pending closes that request (it no longer
    applies); the record says why."""
    override = case.override
    if override is None:
        return
    override.outcome = OverrideOutcome.WITHDRAWN
    override.decided_by, override.decided_at = user, timezone.now()
    override.decline_reason = why
    override.save(update_fields=["outcome", "decided_by", "decided_at", "decline_reason"])
    record_on_reservation(
        reservation=case.reservation,
        action="reservation.override_withdraw",
        user=user,
        before={"override": OverrideOutcome.PENDING},
        after={"override": OverrideOutcome.WITHDRAWN},
        reason=why,
    )


def accept_on_run(
    *,
    reservation: Reservation,
    run: BurnInRun,
    user: User,
    override: OverrideRequest | None = None,
) -> Acceptance:
    """Record the acceptance, start the clock and freeze the baseline (callers hold the locks
    and have asked the table)."""
    now = timezone.now()
    kind = DecisionKind.OVERRIDE if override is not None else DecisionKind.ACCEPTED
    decision = Acceptance.objects.create(
        reservation=reservation,
        run=run,
        kind=kind,
        reason=override.reason if override is not None else "",
        gate_passed=run.gate_passed,
        gate_summary=run.gate_summary,
        by=user,
        at=now,
        override=override,
    )
    reservation.status = ReservationStatus.ACCEPTED
    reservation.clock_starts_at = clock_start_for(reservation, now)
    reservation.save(update_fields=["status", "clock_starts_at"])
    from_run = override is None or override.baseline_from_run
    source = BaselineSource.RUN if from_run else BaselineSource.CONTRACTED
    after: dict[str, Any] = {
        "status": reservation.status,
        "run": run.label,
        "gate_passed": run.gate_passed,
        "clock_starts_at": reservation.clock_starts_at.isoformat(),
        "baseline": str(source),
    }
    if override is not None:
        after |= {
            "requested_by": override.requested_by.get_username() if override.requested_by else "",
            "approved_by": user.get_username(),
            "waived": override.waived_codes,
        }
    record_on_reservation(
        reservation=reservation,
        action="reservation.override_approve" if override else "reservation.accept",
        user=user,
        before={"status": ReservationStatus.PENDING},
        after=after,
        reason=decision.reason,
    )
    version = reservation.fixture_version
    header = {
        "reservation_id": reservation.pk,
        "run": {"id": run.pk, "label": run.label},
        "fixture_version": version.number,
        "fixture_spec_sha256": version.spec_sha256,
        "accepted_at": now.isoformat(),
        "accepted_by": user.get_username(),
        "clock_starts_at": reservation.clock_starts_at.isoformat(),
        "by_override": override is not None,
        "gate": {"passed": run.gate_passed, "summary": run.gate_summary},
        # Findings on the evidence at acceptance: "warn" ones were explained away.
        "findings": [
            {"key": c.finding_key, "status": c.status, "message": c.message}
            for c in run.checks.filter(version=run.checked_version or 0)
            .exclude(finding_key="")
            .order_by("position")
        ],
    }
    if from_run:
        snapshot = burnin_report.baseline_snapshot(_files(run), version.spec, header=header)
        snapshot["source"] = str(BaselineSource.RUN)
    else:
        snapshot = burnin_report.contracted_baseline_snapshot(version.spec, header=header)
    Baseline.objects.create(reservation=reservation, run=run, source=source, snapshot=snapshot)
    acceptance_decided_notify(decision=decision)
    return decision


@transaction.atomic
def reservation_accept(*, reservation: Reservation, run: BurnInRun, user: User) -> Acceptance:
    """Accept on a passing gate: the clock starts and this run is the hand-over baseline."""
    case = lock(reservation, run)
    assert case.run is not None
    reservation_move(case, "accept", user=user)
    withdraw_pending(case, user=user, why=f"The buyer accepted run “{case.run.label}”.")
    return accept_on_run(reservation=case.reservation, run=case.run, user=user)


@transaction.atomic
def reservation_reject(*, reservation: Reservation, user: User, reason: str) -> Acceptance:
    case = lock(reservation)
    reservation_move(case, "reject", user=user)
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": ["Say why the reservation is rejected."]})
    reservation = case.reservation
    withdraw_pending(case, user=user, why="The buyer rejected the reservation.")
    latest = reservation.runs.order_by("-created_at", "-pk").first()
    decision = Acceptance.objects.create(
        reservation=reservation,
        run=latest,
        kind=DecisionKind.REJECTED,
        reason=reason,
        gate_passed=latest.gate_passed if latest else None,
        gate_summary=latest.gate_summary if latest else "",
        by=user,
        at=timezone.now(),
    )
    reservation.status = ReservationStatus.REJECTED
    reservation.save(update_fields=["status"])
    record_on_reservation(
        reservation=reservation,
        action="reservation.reject",
        user=user,
        before={"status": ReservationStatus.PENDING},
        after={"status": reservation.status},
        reason=reason,
    )
    acceptance_decided_notify(decision=decision)
    return decision
