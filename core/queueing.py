"""Sending a task to the broker, with a short retry, and a clear failure when it is away.

`apply_async` without a retry policy waits on an unreachable Redis for as long as kombu's
defaults allow and then raises an error that becomes an HTML 500. Here a few quick retries are
tried and then `QueueUnavailable` is raised: the caller has already stored its row, which waits
(queued) for a Retry or for the reaper, and the user is told so with a 503.
"""

from __future__ import annotations

from typing import Any

from kombu.exceptions import OperationalError

from core.errors import QueueUnavailable

RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 1}


def send_task(task: Any, *args: Any, what: str) -> None:
    """Queue `task(*args)`; `what` names the stored thing that waits when the broker is away."""
    try:
        task.apply_async(args=args, retry=True, retry_policy=RETRY_POLICY)
    except (OperationalError, ConnectionError, OSError) as exc:
        raise QueueUnavailable(
            f"{what} is stored, but the task queue could not be reached ({type(exc).__name__}), "
            "so it has not started. It waits: retry in a minute from its page."
        ) from exc
