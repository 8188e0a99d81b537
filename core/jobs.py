"""Background jobs that never stay stuck.

A worker killed mid-task (out of memory, a deploy, SIGKILL) leaves its job "running" forever:
the page shows a spinner and refuses Retry. Each app that keeps a job state registers a reaper
here; `reap_stuck_jobs` (a `manage.py` command and a Celery beat task) asks each to fail the
jobs that have run past their time limit, with a reason, so that Retry is offered again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.metrics import JOBS_REAPED
from engine.formatting import duration

#: A reaper fails its app's stuck jobs and returns how many it failed.
Reaper = Callable[[datetime], int]
_REAPERS: dict[str, Reaper] = {}

STUCK_REASON = (
    "The job stopped without finishing: its worker was lost or it ran past its time limit "
    "({limit}). Retry it."
)
NEVER_STARTED = "No worker picked the job up within {limit}; the queue may have lost it. Retry it."


def register_reaper(name: str, reaper: Reaper) -> None:
    _REAPERS[name] = reaper


def reap_stuck_jobs(*, now: datetime | None = None) -> dict[str, int]:
    """Fail every job past its time limit; what each app failed, by name."""
    now = now or timezone.now()
    reaped = {name: reaper(now) for name, reaper in sorted(_REAPERS.items())}
    for name, count in reaped.items():
        if count:
            JOBS_REAPED.labels(name).inc(count)
    return reaped


def running_cutoff(now: datetime, *, limit_seconds: int | None = None) -> datetime:
    """A job started before this has run past its limit (plus a minute's grace)."""
    limit = limit_seconds or settings.JOB_TIME_LIMIT_SECONDS
    return now - timedelta(seconds=limit + 60)


def queued_cutoff(now: datetime) -> datetime:
    """A job queued before this was never delivered: the broker would have re-sent it by now."""
    return now - timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])


def limit_words(seconds: int) -> str:
    return duration(max(seconds // 60, 1))
