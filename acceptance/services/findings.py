"""Explaining a finding on burn-in evidence away: the buyer's approver or admin writes why it
does not block (one full sentence at least). The reason goes into the audit trail and the run is
checked again, the finding now a warning. The explanation holds while the finding rests on the
same files; a new upload that changes those files makes it stale and the finding blocks again.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from acceptance.audit import record_on_reservation
from acceptance.lifecycle import case_for, reservation_move
from acceptance.models import BurnInRun, Check, Evidence, FindingExplanation
from acceptance.services.burnin import _require_pending, evidence_changed
from core.errors import ServiceError
from core.sentences import sentence_problem

REASON_ASK = "Say why this finding does not block the gate"


@transaction.atomic
def finding_explain(*, run: BurnInRun, user: User, key: str, reason: str) -> FindingExplanation:
    """Record the buyer's reason for a finding of the run's current checks; re-check the run."""
    # Only the run is locked: its reservation is a nullable join (a pilot's run has none).
    run = (
        BurnInRun.objects.select_for_update(of=("self",))
        .select_related("reservation")
        .get(pk=run.pk)
    )
    _require_pending(run.burnin_reservation)
    reservation_move(case_for(run.burnin_reservation, run), "explain_finding", user=user)
    version = run.checked_version if run.checks_current else None
    row = (
        Check.objects.filter(run=run, version=version, finding_key=key).first()
        if version is not None and key
        else None
    )
    if row is None:
        raise ServiceError(
            "That finding is not among the run's current checks (the evidence changed or the "
            "checks are still running): reload the page and explain the current one."
        )
    if row.status != "fail":
        raise ServiceError("That finding is already explained for these files.")
    reason = reason.strip()
    if problem := sentence_problem(reason, ask=REASON_ASK):
        raise ValidationError({"reason": [problem]})
    explanation = FindingExplanation.objects.create(
        run=run,
        key=key,
        fingerprint=row.finding_fingerprint,
        message=row.message,
        reason=reason,
        by=user,
    )
    files = Evidence.objects.filter(pk__in=row.finding_evidence).order_by("pk")
    record_on_reservation(
        reservation=run.burnin_reservation,
        action="reservation.finding_explain",
        user=user,
        after={
            "run": run.label,
            "finding": key,
            "message": row.message,
            "files": [f"{e.original_name} ({e.node_label}, SHA-256 {e.sha256})" for e in files],
        },
        reason=reason,
    )
    evidence_changed(run)  # the check runs again without this finding blocking
    return explanation
