"""Thin Celery tasks: ids in, one service call, safe to run twice.

A crash is written onto the evidence (or run) as a visible error with a Retry button, then
re-raised so the worker logs it.
"""

from __future__ import annotations

from celery import shared_task

from acceptance.models import BurnInRun, Evidence
from acceptance.services.burnin import (
    evidence_mark_error,
    evidence_parse,
    run_mark_error,
    run_recheck,
)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def parse_evidence(evidence_id: int) -> str:
    try:
        evidence = evidence_parse(evidence_id=evidence_id)
    except Evidence.DoesNotExist:
        return "gone"
    except Exception as exc:
        evidence_mark_error(evidence_id=evidence_id, error=exc)
        raise
    return evidence.state


@shared_task(acks_late=True, reject_on_worker_lost=True)
def recheck_run(run_id: int) -> str:
    try:
        run = run_recheck(run_id=run_id)
    except BurnInRun.DoesNotExist:
        return "gone"
    except Exception as exc:
        run_mark_error(run_id=run_id, error=exc)
        raise
    return run.checks_state
