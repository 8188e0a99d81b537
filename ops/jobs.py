"""Exports that never stay "running" or "queued" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models.functions import Coalesce

from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from ops.models import ExportJob, ExportStatus


def export_jobs_reap(now: datetime) -> int:
    limit = settings.JOB_TIME_LIMIT_SECONDS
    running = ExportJob.objects.filter(
        status=ExportStatus.RUNNING, started_at__lt=running_cutoff(now, limit_seconds=limit)
    ).update(
        status=ExportStatus.FAILED,
        error=STUCK_REASON.format(limit=limit_words(limit)),
        finished_at=now,
    )
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    queued = (
        ExportJob.objects.alias(since=Coalesce("queued_at", "created_at"))
        .filter(status=ExportStatus.QUEUED, since__lt=queued_cutoff(now))
        .update(
            status=ExportStatus.FAILED,
            error=NEVER_STARTED.format(limit=limit_words(visibility)),
            finished_at=now,
        )
    )
    return running + queued
