"""Award (bid -> reservation) and the buyer's decision on it (accept, override, reject)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from acceptance import burnin_report
from acceptance.audit import record_on_reservation
from acceptance.models import (
    Acceptance,
    Acknowledgement,
    Baseline,
    BurnInRun,
    DecisionKind,
    EvidenceState,
    Fixture,
    FixtureVersion,
    Reservation,
    ReservationStatus,
)
from acceptance.notices import acceptance_decided_notify
from bids.models import Bid, CapacityRequest
from bids.services.award import award_refusal, bid_award
from core.errors import ServiceError

#: A justification is at least one full sentence: this many characters, ending like a sentence.
MIN_JUSTIFICATION = 20
_SENTENCE_ENDS = (".", "!", "?")


def justification_problem(text: str) -> str | None:
    """Why `text` is not a written justification of an award (None when it is one)."""
    text = text.strip()
    if len(text) >= MIN_JUSTIFICATION and text.endswith(_SENTENCE_ENDS):
        return None
    return (
        "This bid is not ranked first by the current scoring, or the scoring disqualifies it: "
        "write why you award it, in at least one full sentence "
        f"({MIN_JUSTIFICATION} characters or more, ending with a full stop)."
    )


def awarded_fixture_version(*, bid: Bid) -> FixtureVersion | None:
    """The version the bid acknowledged last; else the request's current version."""
    ack = (
        Acknowledgement.objects.filter(bid=bid, fixture_version__isnull=False)
        .select_related("fixture_version")
        .order_by("-at", "-pk")
        .first()
    )
    if ack is not None and ack.fixture_version is not None:
        return ack.fixture_version
    fixture = Fixture.objects.filter(request_id=bid.request_id).first()
    if fixture is None:
        return None
    return FixtureVersion.objects.filter(fixture=fixture, number=fixture.current_number).first()


@transaction.atomic
def request_award(
    *,
    request: CapacityRequest,
    bid: Bid,
    user: User,
    justification: str = "",
    justification_required: bool = False,
) -> Reservation:
    """The bid wins, every other submitted bid loses, and a reservation awaits acceptance.

    The caller says whether the award goes against the scores (`justification_required`): the
    scores live in a layer above this one. A justification given is kept either way."""
    request = CapacityRequest.objects.select_for_update().get(pk=request.pk)
    bid = Bid.objects.select_for_update().select_related("provider").get(pk=bid.pk)
    refusal = award_refusal(request=request, bid=bid, user=user)
    if refusal:
        raise ServiceError(refusal)
    justification = justification.strip()
    if justification_required and (problem := justification_problem(justification)):
        raise ValidationError({"justification": [problem]})
    version = awarded_fixture_version(bid=bid)
    if version is None:
        raise ServiceError(
            "Attach an acceptance fixture before awarding: the burn-in gate checks the "
            "evidence against it."
        )
    revision = bid_award(request=request, bid=bid, user=user)
    reservation = Reservation.objects.create(
        request=request,
        bid=bid,
        bid_revision=revision,
        fixture_version=version,
        awarded_by=user,
        award_justification=justification or None,
    )
    record_on_reservation(
        reservation=reservation,
        action="reservation.open",
        user=user,
        after={
            "status": reservation.status,
            "bid_revision": revision.number,
            "fixture_version": version.number,
        },
    )
    return reservation


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


def _lock_pending(reservation: Reservation) -> Reservation:
    locked = Reservation.objects.select_for_update().get(pk=reservation.pk)
    if locked.status != ReservationStatus.PENDING:
        raise ServiceError(
            f"The reservation is already {locked.get_status_display().lower()}; "
            "the decision stands."
        )
    return locked


@transaction.atomic
def reservation_accept(
    *, reservation: Reservation, run: BurnInRun, user: User, override_reason: str = ""
) -> Acceptance:
    """Accept on a passing gate, or by override with a written reason. Starts the clock."""
    reservation = _lock_pending(reservation)
    run = BurnInRun.objects.select_for_update().get(pk=run.pk)
    if run.reservation_id != reservation.pk:
        raise ValidationError({"run": ["That run belongs to another reservation."]})
    if not run.checks_current:
        raise ServiceError(
            "The checks for this run are not up to date with its evidence yet; "
            "wait for the verdict before deciding."
        )
    reason = override_reason.strip()
    if run.gate_passed:
        kind = DecisionKind.ACCEPTED
    elif reason:
        kind = DecisionKind.OVERRIDE
    else:
        raise ValidationError(
            {
                "reason": [
                    "The gate has not passed. To accept anyway, write why: the reason is "
                    "recorded with the acceptance."
                ]
            }
        )
    now = timezone.now()
    decision = Acceptance.objects.create(
        reservation=reservation,
        run=run,
        kind=kind,
        reason=reason if kind == DecisionKind.OVERRIDE else "",
        gate_passed=run.gate_passed,
        gate_summary=run.gate_summary,
        by=user,
        at=now,
    )
    reservation.status = ReservationStatus.ACCEPTED
    reservation.save(update_fields=["status"])
    record_on_reservation(
        reservation=reservation,
        action="reservation.accept" if kind == DecisionKind.ACCEPTED else "reservation.override",
        user=user,
        before={"status": ReservationStatus.PENDING},
        after={"status": reservation.status, "run": run.label, "gate_passed": run.gate_passed},
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
        "by_override": kind == DecisionKind.OVERRIDE,
        "gate": {"passed": run.gate_passed, "summary": run.gate_summary},
    }
    Baseline.objects.create(
        reservation=reservation,
        run=run,
        snapshot=burnin_report.baseline_snapshot(_files(run), version.spec, header=header),
    )
    acceptance_decided_notify(decision=decision)
    return decision


@transaction.atomic
def reservation_reject(*, reservation: Reservation, user: User, reason: str) -> Acceptance:
    reservation = _lock_pending(reservation)
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": ["Say why the reservation is rejected."]})
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


__all__ = [
    "MIN_JUSTIFICATION",
    "awarded_fixture_version",
    "justification_problem",
    "request_award",
    "reservation_accept",
    "reservation_reject",
]
