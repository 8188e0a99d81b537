"""Failed-run analyses that never stay "analysing" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models import Q

from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from incidents.models import FailedRun, FailedRunState


def failed_runs_reap(now: datetime) -> int:
    limit = settings.ANALYSIS_TIME_LIMIT_SECONDS
    running = FailedRun.objects.filter(
        Q(analysis_started_at__lt=running_cutoff(now, limit_seconds=limit))
        | Q(
            analysis_started_at__isnull=True,
            uploaded_at__lt=running_cutoff(now, limit_seconds=limit),
        ),
        state=FailedRunState.ANALYSING,
    ).update(state=FailedRunState.ERROR, error=STUCK_REASON.format(limit=limit_words(limit)))
    queued = FailedRun.objects.filter(
        state=FailedRunState.QUEUED, uploaded_at__lt=queued_cutoff(now)
    ).update(
        state=FailedRunState.ERROR,
        error=NEVER_STARTED.format(
            limit=limit_words(settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
        ),
    )
    return running + queued
