"""The periodic reaper: Celery beat sends it every REAP_STUCK_JOBS_SECONDS."""

from __future__ import annotations

from celery import shared_task

from core.jobs import reap_stuck_jobs as reap


@shared_task(acks_late=True)
def reap_stuck_jobs() -> dict[str, int]:
    return reap()
