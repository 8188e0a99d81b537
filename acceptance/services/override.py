"""Acceptance over a failing gate, in two steps and by two people.

`override_request`: a buyer writes why (one full sentence at least), ticks every blocking check
it waives (the list is frozen), says whether the overridden run becomes the recovery baseline
(no, by default: the contracted thresholds are) and confirms. `override_approve`: a buyer-side
approver or administrator other than the requester accepts the reservation on it, as long as
the run's verdict is still the one asked about. `override_decline`: that approver refuses, with
a reason. One service per step, so a notice can hang off each.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.lifecycle import reservation_move
from acceptance.models import Acceptance, BurnInRun, OverrideOutcome, OverrideRequest, Reservation
from acceptance.notices import override_declined_notify, override_requested_notify
from acceptance.selectors.override import blocking_checks
from acceptance.services.decision import accept_on_run, lock
from core.errors import ServiceError
from core.sentences import sentence_problem

REASON_ASK = "The gate has not passed. To accept anyway, write why"
DECLINE_ASK = "Say why you decline the override"


def _waived_problem(blocking: list[dict[str, object]], ticked: list[str]) -> str | None:
    codes = [str(c["code"]) for c in blocking]
    missing = [c for c in blocking if c["code"] not in ticked]
    unknown = [code for code in ticked if code not in codes]
    if missing:
        names = "; ".join(str(c["title"]) for c in missing)
        return (
            f"Tick every blocking check you waive: {len(missing)} of {len(blocking)} not "
            f"ticked ({names})."
        )
    if unknown:
        return (
            f"These checks do not block this run's gate now: {', '.join(unknown)}. "
            "Reload the page and tick the current ones."
        )
    return None


@transaction.atomic
def override_request(
    *,
    reservation: Reservation,
    run: BurnInRun,
    user: User,
    reason: str,
    waived: Iterable[str],
    baseline_from_run: bool = False,
    confirmed: bool = False,
) -> OverrideRequest:
    """Ask a second person to accept the reservation over the run's failing gate."""
    case = lock(reservation, run)
    assert case.run is not None
    reservation_move(case, "request_override", user=user)
    run = case.run
    reason = reason.strip()
    ticked = list(dict.fromkeys(str(code) for code in waived))
    blocking = blocking_checks(run=run)
    errors: dict[str, list[str]] = {}
    if problem := sentence_problem(reason, ask=REASON_ASK):
        errors["reason"] = [problem]
    if problem := _waived_problem(blocking, ticked):
        errors["waived"] = [problem]
    if not confirmed:
        errors["confirm"] = [
            "Confirm that you ask to accept a reservation whose gate fails, with these checks "
            "waived."
        ]
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            override = OverrideRequest.objects.create(
                reservation=case.reservation,
                run=run,
                reason=reason,
                waived=blocking,
                evidence_version=run.evidence_version,
                gate_summary=run.gate_summary,
                baseline_from_run=baseline_from_run,
                requested_by=user,
                requested_at=timezone.now(),
            )
    except IntegrityError:
        raise ServiceError(
            "An override request is already awaiting a second approver on this reservation."
        ) from None
    record_on_reservation(
        reservation=case.reservation,
        action="reservation.override_request",
        user=user,
        before={"status": "pending"},
        after={
            "status": "awaiting_approval",
            "run": run.label,
            "waived": override.waived_codes,
            "baseline": "run" if baseline_from_run else "contracted",
        },
        reason=reason,
    )
    override_requested_notify(override=override)
    return override


def _same(case_override: OverrideRequest | None, override: OverrideRequest) -> OverrideRequest:
    if case_override is None or case_override.pk != override.pk:
        raise ServiceError("This override request is no longer pending; the decision stands.")
    return case_override


@transaction.atomic
def override_approve(*, override: OverrideRequest, user: User) -> Acceptance:
    """The second person approves: the reservation is accepted on the overridden run."""
    case = lock(override.reservation, override.run)
    reservation_move(case, "approve_override", user=user)
    pending = _same(case.override, override)
    assert case.run is not None
    pending.outcome = OverrideOutcome.APPROVED
    pending.decided_by, pending.decided_at = user, timezone.now()
    pending.save(update_fields=["outcome", "decided_by", "decided_at"])
    return accept_on_run(reservation=case.reservation, run=case.run, user=user, override=pending)


@transaction.atomic
def override_decline(*, override: OverrideRequest, user: User, reason: str) -> OverrideRequest:
    """The second person declines: the reservation stays pending, the request is closed."""
    case = lock(override.reservation)
    reservation_move(case, "decline_override", user=user)
    pending = _same(case.override, override)
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": [f"{DECLINE_ASK}: the requester reads it."]})
    pending.outcome = OverrideOutcome.DECLINED
    pending.decided_by, pending.decided_at = user, timezone.now()
    pending.decline_reason = reason
    pending.save(update_fields=["outcome", "decided_by", "decided_at", "decline_reason"])
    record_on_reservation(
        reservation=case.reservation,
        action="reservation.override_decline",
        user=user,
        before={"status": "awaiting_approval"},
        after={"status": "pending", "run": pending.run.label},
        reason=reason,
    )
    override_declined_notify(override=pending)
    return pending
