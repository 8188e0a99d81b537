"""The reconciliation task: an upload id in, one service call, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from billing.models import UsageUpload
from billing.services import (
    usage_inspect,
    usage_mark_error,
    usage_mark_inspection_error,
    usage_reconcile,
)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def reconcile_usage(upload_id: int) -> str:
    try:
        row = usage_reconcile(upload_id=upload_id)
    except UsageUpload.DoesNotExist:
        return "gone"
    except Exception as exc:
        usage_mark_error(upload_id=upload_id, error=exc)
        raise
    return row.state


@shared_task(acks_late=True, reject_on_worker_lost=True)
def inspect_usage(upload_id: int) -> str:
    """Read a stored bill once, for the mapping page: an upload id in, one service call."""
    try:
        row = usage_inspect(upload_id=upload_id)
    except UsageUpload.DoesNotExist:
        return "gone"
    except Exception as exc:
        usage_mark_inspection_error(upload_id=upload_id, error=exc)
        raise
    return row.state
