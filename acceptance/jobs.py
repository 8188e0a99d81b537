"""Evidence parses and burn-in re-checks that never stay "parsing", "queued" or "checking"
(registered with core.jobs). A failed parse queues its run's re-check, as a crash would."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Coalesce

from acceptance.models import BurnInRun, ChecksState, Evidence, EvidenceState
from acceptance.services.burnin import evidence_changed
from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff


def burnin_jobs_reap(now: datetime) -> int:
    # Runs first: a parse failed below queues its run's re-check afresh.
    return _runs_reap(now) + _evidence_reap(now)


def _evidence_reap(now: datetime) -> int:
    stuck_reason = STUCK_REASON.format(limit=limit_words(settings.JOB_TIME_LIMIT_SECONDS))
    lost_reason = NEVER_STARTED.format(
        limit=limit_words(settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    )
    failed = 0
    for state, cutoff, reason in (
        (EvidenceState.PARSING, running_cutoff(now), stuck_reason),
        (EvidenceState.QUEUED, queued_cutoff(now), lost_reason),
    ):
        with transaction.atomic():
            stuck = Evidence.objects.select_for_update().filter(
                state=state, state_changed_at__lt=cutoff
            )
            runs = set(stuck.values_list("run_id", flat=True))
            failed += stuck.update(
                state=EvidenceState.ERROR, error=reason, error_line=None, state_changed_at=now
            )
            for run in BurnInRun.objects.filter(pk__in=runs):
                evidence_changed(run)
    return failed


def _runs_reap(now: datetime) -> int:
    """A re-check still queued past the broker's visibility timeout was lost; one started past
    the time limit lost its worker (a running one has no queued mark: the task clears it)."""
    limit = settings.JOB_TIME_LIMIT_SECONDS
    lost = BurnInRun.objects.filter(
        checks_state=ChecksState.RUNNING, recheck_queued_at__lt=queued_cutoff(now)
    ).update(
        checks_state=ChecksState.ERROR,
        checks_error=NEVER_STARTED.format(
            limit=limit_words(settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
        ),
        gate_passed=None,
        recheck_queued_at=None,
    )
    stuck = (
        BurnInRun.objects.alias(since=Coalesce("checks_started_at", "created_at"))
        .filter(
            Q(recheck_queued_at__isnull=True),
            checks_state=ChecksState.RUNNING,
            since__lt=running_cutoff(now),
        )
        .update(
            checks_state=ChecksState.ERROR,
            checks_error=STUCK_REASON.format(limit=limit_words(limit)),
            gate_passed=None,
        )
    )
    return lost + stuck
