"""The periodic sweeps: the reaper (every REAP_STUCK_JOBS_SECONDS) and the sending of tasks that
waited for the broker (every WAITING_TASKS_SECONDS)."""

from __future__ import annotations

from celery import shared_task

from core.jobs import reap_stuck_jobs as reap
from core.queueing import send_waiting


@shared_task(acks_late=True)
def reap_stuck_jobs() -> dict[str, int]:
    return reap()


@shared_task(acks_late=True)
def send_waiting_tasks() -> int:
    return send_waiting()
