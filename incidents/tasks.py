"""Thin Celery task for failed-run analysis: an id in, one service call, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from incidents.models import FailedRun
from incidents.services import failed_run_analyse, failed_run_mark_error


@shared_task(acks_late=True, reject_on_worker_lost=True)
def analyse_failed_run(failed_run_id: int) -> str:
    try:
        run = failed_run_analyse(failed_run_id=failed_run_id)
    except FailedRun.DoesNotExist:
        return "gone"
    except Exception as exc:
        failed_run_mark_error(failed_run_id=failed_run_id, error=exc)
        raise
    return run.state
