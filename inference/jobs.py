"""Served-responses readings that never stay "queued" or "reading" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from inference.models import ServedResponsesFile, ServedState


def served_parses_reap(now: datetime) -> int:
    lost = ServedResponsesFile.objects.filter(
        state=ServedState.QUEUED, queued_at__lt=queued_cutoff(now)
    ).update(
        state=ServedState.ERROR,
        error=NEVER_STARTED.format(
            limit=limit_words(settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
        ),
        queued_at=None,
        state_changed_at=now,
    )
    stuck = ServedResponsesFile.objects.filter(
        state=ServedState.PARSING, state_changed_at__lt=running_cutoff(now)
    ).update(
        state=ServedState.ERROR,
        error=STUCK_REASON.format(limit=limit_words(settings.JOB_TIME_LIMIT_SECONDS)),
        state_changed_at=now,
    )
    return lost + stuck
