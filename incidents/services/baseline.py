"""The buyer's proposed baseline step time and the provider's answer. The hand-over baseline
(the accepted burn-in's step time) stands until the provider's approver or admin accepts a
proposal; each step is on the reservation's audit trail with who and why."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation
from core.errors import ServiceError
from core.uploads import atomic_keeping_no_orphans, check_upload
from engine import failures
from engine.failures import degraded as deg
from incidents.lifecycle import require_baseline_move
from incidents.models import BaselineProposal, BaselineProposalStatus
from incidents.selectors import step_time_baseline


def _reason(reason: str, *, what: str) -> str:
    text = reason.strip()
    if not text:
        raise ValidationError({"reason": [f"Say why {what}; the reason is on the record."]})
    return text[:2000]


def baseline_propose(
    *, reservation: Reservation, user: User, upload: UploadedFile, reason: str,
    now: datetime | None = None,
) -> BaselineProposal:  # fmt: skip
    """The buyer proposes its own job's step time (the file's per-step median across ranks,
    then the median over the steps) as the baseline. Nothing changes until the provider
    accepts; an unreadable file or too few steps is a field error and stores nothing."""
    require_baseline_move(reservation, "baseline_propose", user=user)
    text = _reason(reason, what="the baseline should change")
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    with atomic_keeping_no_orphans():
        row = BaselineProposal(reservation=reservation, proposed_by=user, reason=text)
        row.store(upload)
        try:
            rows = deg.parse_rank_steps(row.read_bytes(), name=row.original_name)
            row.step_time_s, row.steps = deg.proposed_baseline(rows, name=row.original_name)
        except failures.FailureInputError as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        row.proposed_at = now or timezone.now()
        row.save()
        current, source = step_time_baseline(reservation)
        record_on_reservation(
            reservation=reservation, action="baseline.propose", user=user,
            obj_key=f"baseline-proposal:{row.pk}",
            before={"step_time_s": current, "source": source},
            after={"step_time_s": row.step_time_s, "steps": row.steps,
                   "file": row.original_name, "sha256": row.sha256},
            reason=text,
        )  # fmt: skip
    return row


def _pending(reservation: Reservation) -> BaselineProposal:
    row = (
        BaselineProposal.objects.select_for_update()
        .filter(reservation=reservation, status=BaselineProposalStatus.PENDING)
        .first()
    )
    if row is None:
        raise ServiceError("No baseline proposal is waiting for an answer.")
    return row


@transaction.atomic
def baseline_answer(
    *, reservation: Reservation, user: User, accept: bool, reason: str = "",
    now: datetime | None = None,
) -> BaselineProposal:  # fmt: skip
    """The provider's approver or admin accepts (the proposal becomes the baseline S2 is
    measured against from now on) or rejects it with a reason (the baseline stays)."""
    name = "baseline_accept" if accept else "baseline_reject"
    require_baseline_move(reservation, name, user=user)
    text = reason.strip()[:2000] if accept else _reason(reason, what="the baseline is rejected")
    row = _pending(reservation)
    before = step_time_baseline(reservation)
    row.status = BaselineProposalStatus.ACCEPTED if accept else BaselineProposalStatus.REJECTED
    row.decided_by, row.decided_at, row.decision_reason = user, now or timezone.now(), text
    row.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    record_on_reservation(
        reservation=reservation, action=f"baseline.{'accept' if accept else 'reject'}",
        user=user, obj_key=f"baseline-proposal:{row.pk}",
        before={"step_time_s": before[0], "source": before[1]},
        after={"step_time_s": step_time_baseline(reservation)[0], "status": row.status},
        reason=text or row.reason,
    )  # fmt: skip
    return row
