"""Periodic delivery work: the outcome of planned changes whose window has opened."""

from __future__ import annotations

from celery import shared_task

from delivery.changes import change_windows_sweep


@shared_task(acks_late=True, reject_on_worker_lost=True)
def open_change_windows() -> int:
    """Write the outcome of every planned change whose window opened since the last sweep;
    a change already written is skipped, so a repeated run changes nothing."""
    return change_windows_sweep()
