"""Scoring runs that never stay "running" (registered with core.jobs)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings

from core.jobs import STUCK_REASON, limit_words, running_cutoff
from evaluation.models import AwardScenario, ScenarioStatus, ScoringRun, ScoringStatus


def scoring_runs_reap(now: datetime) -> int:
    return ScoringRun.objects.filter(
        status=ScoringStatus.RUNNING, started_at__lt=running_cutoff(now)
    ).update(
        status=ScoringStatus.FAILED,
        error=STUCK_REASON.format(limit=limit_words(settings.JOB_TIME_LIMIT_SECONDS)),
        finished_at=now,
    )


def scenarios_reap(now: datetime) -> int:
    """A scenario left solving by a worker that died: failed with the reason, so Retry shows.
    `updated_at` is when the worker claimed it."""
    return AwardScenario.objects.filter(
        status=ScenarioStatus.SOLVING, updated_at__lt=running_cutoff(now)
    ).update(
        status=ScenarioStatus.FAILED,
        error=STUCK_REASON.format(limit=limit_words(settings.JOB_TIME_LIMIT_SECONDS)),
        solved_at=now,
    )
