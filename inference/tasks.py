"""Thin Celery task: an id in, one service call, safe to run twice. A crash is written onto the
file as a visible error with a Retry button, then re-raised so the worker logs it."""

from __future__ import annotations

from celery import shared_task

from inference.models import ServedResponsesFile
from inference.services import served_mark_error, served_read


@shared_task(acks_late=True, reject_on_worker_lost=True)
def read_served_file(file_id: int) -> str:
    try:
        row = served_read(file_id=file_id)
    except ServedResponsesFile.DoesNotExist:
        return "gone"
    except Exception as exc:
        served_mark_error(file_id=file_id, error=exc)
        raise
    return row.state
