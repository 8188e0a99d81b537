"""Sending a task to the broker, with a short retry, and a clear failure when it is away.

`apply_async` without a retry policy waits on an unreachable Redis for as long as kombu's
defaults allow and then raises an error that becomes an HTML 500. Here a few quick retries are
tried; then the task is written down (`WaitingTask`) and `QueueUnavailable` is raised. The
caller's row is already committed (sending runs on commit) and waits as queued; the periodic
sweep (`send_waiting`, run by beat with the reaper) sends it when the broker answers again.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app as celery_app
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from core.errors import QueueUnavailable
from core.models import WaitingTask

logger = logging.getLogger(__name__)
RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 1}
UNREACHABLE = (OperationalError, ConnectionError, OSError)
SWEEP_BATCH = 500


def _send(name: str, args: list[Any], countdown: int | None = None) -> None:
    celery_app.signature(name, args=args).apply_async(
        retry=True, retry_policy=RETRY_POLICY, countdown=countdown
    )


def runs_in_process() -> bool:
    """Tasks run eagerly, in the caller's process (no broker): nothing can be sent for later."""
    return bool(celery_app.conf.task_always_eager)


def send_task(
    task: Any, *args: Any, what: str, quiet: bool = False, countdown: int | None = None
) -> None:
    """Queue `task(*args)`; `what` names the stored thing that waits when the broker is away.
    `quiet`: work the user did not ask for by name (scoring after a bid's submit) waits without
    turning the user's own, finished action into an error. `countdown`: seconds before a worker
    may start it (a task that waited for the broker is sent without one: it is late already)."""
    try:
        _send(task.name, list(args), countdown)
    except UNREACHABLE as exc:
        with transaction.atomic():
            WaitingTask.objects.create(task=task.name, args=list(args), what=what[:300])
        if quiet:
            logger.warning("%s waits for the broker (%s)", what, type(exc).__name__)
            return
        raise QueueUnavailable(
            f"{what} is stored, but the task queue could not be reached ({type(exc).__name__}), "
            "so it has not started yet. It waits and starts by itself once the queue is back; "
            "you can also retry it from its page."
        ) from exc


def send_waiting() -> int:
    """Send the tasks that waited for the broker, oldest first; stop at the first that still
    cannot be sent. How many were sent."""
    sent = 0
    for waiting in WaitingTask.objects.all()[:SWEEP_BATCH]:
        try:
            _send(waiting.task, waiting.args)
        except UNREACHABLE:
            WaitingTask.objects.filter(pk=waiting.pk).update(
                tried_at=timezone.now(), tries=waiting.tries + 1
            )
            break
        waiting.delete()
        sent += 1
    return sent
