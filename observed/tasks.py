"""Reading an observed file: an upload id in, one service call, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from observed.models import ObservedUpload
from observed.services import observed_mark_error, observed_parse


@shared_task(acks_late=True, reject_on_worker_lost=True)
def parse_observed(upload_id: int) -> str:
    try:
        row = observed_parse(upload_id=upload_id)
    except ObservedUpload.DoesNotExist:
        return "gone"
    except Exception as exc:
        observed_mark_error(upload_id=upload_id, error=exc)
        raise
    return row.state
