"""Reconciliations that never stay "reconciling" or "queued" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from billing.models import UsageState, UsageUpload
from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff


def usage_reconciliations_reap(now: datetime) -> int:
    limit = settings.JOB_TIME_LIMIT_SECONDS
    running = UsageUpload.objects.filter(
        state=UsageState.RUNNING, started_at__lt=running_cutoff(now, limit_seconds=limit)
    ).update(state=UsageState.ERROR, error=STUCK_REASON.format(limit=limit_words(limit)))
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    queued = UsageUpload.objects.filter(
        state=UsageState.QUEUED, queued_at__lt=queued_cutoff(now)
    ).update(state=UsageState.ERROR, error=NEVER_STARTED.format(limit=limit_words(visibility)))
    return running + queued
