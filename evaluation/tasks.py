"""Scoring task: thin, keyed by request id, safe to run twice (the service is idempotent)."""

from celery import shared_task
from django.db import OperationalError

from bids.models import CapacityRequest
from evaluation.scenario_services import scenario_solve
from evaluation.services import request_score


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, OperationalError),
    retry_backoff=True,
    max_retries=5,
)
def score_request(request_id: int) -> str:
    request = CapacityRequest.objects.get(pk=request_id)
    run = request_score(capacity_request=request)
    return f"run {run.pk}: {run.status}"


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, OperationalError),
    retry_backoff=True,
    max_retries=5,
)
def solve_scenario(scenario_id: int, revision: int) -> str:
    scenario = scenario_solve(scenario_id=scenario_id, revision=revision)
    return f"scenario {scenario_id}: {scenario.status if scenario else 'nothing to do'}"
