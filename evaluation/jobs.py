"""Scoring runs that never stay "running" or "queued" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db.models.functions import Coalesce

from core.jobs import NEVER_STARTED, STUCK_REASON, limit_words, queued_cutoff, running_cutoff
from evaluation.models import AwardScenario, ScenarioStatus, ScoringRun, ScoringStatus


def scoring_runs_reap(now: datetime) -> int:
    running = ScoringRun.objects.filter(
        status=ScoringStatus.RUNNING, started_at__lt=running_cutoff(now)
    ).update(
        status=ScoringStatus.FAILED,
        error=STUCK_REASON.format(limit=limit_words(settings.JOB_TIME_LIMIT_SECONDS)),
        finished_at=now,
    )
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    queued = (
        ScoringRun.objects.alias(since=Coalesce("queued_at", "created_at"))
        .filter(status=ScoringStatus.QUEUED, since__lt=queued_cutoff(now))
        .update(
            status=ScoringStatus.FAILED,
            error=NEVER_STARTED.format(limit=limit_words(visibility)),
            finished_at=now,
        )
    )
    return running + queued


def scenarios_reap(now: datetime) -> int:
    """A scenario left solving by a worker that died, or queued with a message that never
    arrived: failed with the reason, so Retry shows. `updated_at` is when it was last queued or
    claimed."""
    solving = AwardScenario.objects.filter(
        status=ScenarioStatus.SOLVING, updated_at__lt=running_cutoff(now)
    ).update(
        status=ScenarioStatus.FAILED,
        error=STUCK_REASON.format(limit=limit_words(settings.JOB_TIME_LIMIT_SECONDS)),
        solved_at=now,
    )
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    queued = AwardScenario.objects.filter(
        status=ScenarioStatus.QUEUED, updated_at__lt=queued_cutoff(now)
    ).update(
        status=ScenarioStatus.FAILED,
        error=NEVER_STARTED.format(limit=limit_words(visibility)),
        solved_at=now,
    )
    return solving + queued
