"""Parses that never stay "reading" or "queued" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from observed.models import ObservedState, ObservedUpload


def observed_parses_reap(now: datetime) -> int:
    limit = settings.JOB_TIME_LIMIT_SECONDS
    running = ObservedUpload.objects.filter(
        state=ObservedState.PARSING, started_at__lt=running_cutoff(now, limit_seconds=limit)
    ).update(state=ObservedState.ERROR, error=STUCK_REASON.format(limit=limit_words(limit)))
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    queued = ObservedUpload.objects.filter(
        state=ObservedState.QUEUED, queued_at__lt=queued_cutoff(now)
    ).update(state=ObservedState.ERROR, error=NEVER_STARTED.format(limit=limit_words(visibility)))
    return running + queued
