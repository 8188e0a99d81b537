"""Thin Celery tasks: failed-run analysis (an id in, one service call, safe to run twice) and
the periodic notice sweep (Celery beat; safe to run twice: each notice is keyed)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from bids.notices import bids_opened_sweep
from incidents.models import FailedRun
from incidents.notices import clocks_sweep
from incidents.services import breaches_sweep, failed_run_analyse, failed_run_mark_error


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=settings.ANALYSIS_TIME_LIMIT_SECONDS,
    soft_time_limit=settings.ANALYSIS_TIME_LIMIT_SECONDS - 30,
)
def analyse_failed_run(failed_run_id: int) -> str:
    try:
        run = failed_run_analyse(failed_run_id=failed_run_id)
    except FailedRun.DoesNotExist:
        return "gone"
    except Exception as exc:
        failed_run_mark_error(failed_run_id=failed_run_id, error=exc)
        raise
    return run.state


@shared_task(acks_late=True, reject_on_worker_lost=True)
def send_due_notices() -> dict[str, int]:
    """Notices that fall due with time rather than with a move: incident clocks at 75 % and
    breached, and sealed requests whose bids opened at their deadline. Breached clocks are
    stored first, as they happened, so no later change can recompute them away."""
    breaches = breaches_sweep()
    return {"breaches": breaches, "incident_clocks": clocks_sweep(),
            "bids_opened": bids_opened_sweep()}  # fmt: skip
