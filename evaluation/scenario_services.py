"""Award scenarios: the buyer defines, edits and re-solves them; a Celery task solves.

Only the buyer's members act, on a request whose bids are open; every change writes one audit
entry, seen by the buyer alone (a scenario is the buyer's deliberation, never a provider's)."""

from __future__ import annotations

import logging
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.models import Party
from audit.services import audit_record, buyer_only
from bids.models import CapacityRequest
from core.queueing import send_task
from engine import award
from evaluation.scenario_inputs import award_inputs, engine_scenario
from evaluation.scenario_models import SCENARIO_FIELDS, AwardScenario, ScenarioStatus

logger = logging.getLogger(__name__)

# Seconds the optimiser may spend on one scenario, relaxations for rule costs included.
SOLVE_TIME_LIMIT_S = 60.0


def _audit(scenario: AwardScenario, *, action: str, user: Any, **kwargs: Any) -> None:
    audit_record(
        action=action,
        obj_key=f"scenario:{scenario.pk}",
        request_id=scenario.request_id,
        user=user,
        org_id=scenario.request.buyer_id,
        party=Party.BUYER,
        audience=buyer_only(buyer_org_id=scenario.request.buyer_id),
        **kwargs,
    )


def _definition(scenario: AwardScenario) -> dict[str, Any]:
    return {"scenario": scenario.pk} | {f: getattr(scenario, f) for f in SCENARIO_FIELDS}


def _check_open(capacity_request: CapacityRequest) -> None:
    if capacity_request.bids_hidden_from_buyer:
        raise ValidationError(
            "Scenarios can be defined once the bids open: until then the buyer sees no offers "
            "to allocate."
        )


def _queue(scenario: AwardScenario) -> None:
    """Mark the scenario queued for a new revision and send the task after commit."""
    scenario.status, scenario.error = ScenarioStatus.QUEUED, ""
    scenario.revision += 1
    scenario.save(update_fields=["status", "error", "revision", "updated_at"])
    from evaluation.tasks import solve_scenario

    args = (scenario.pk, scenario.revision)
    what = f"Solving of scenario “{scenario.name}”"
    transaction.on_commit(lambda: send_task(solve_scenario, *args, what=what, quiet=True))


@transaction.atomic
def _check_name_free(scenario: AwardScenario) -> None:
    """Scenarios are compared and awarded by name, so two on one request never share one."""
    taken = (
        AwardScenario.objects.filter(request_id=scenario.request_id, name__iexact=scenario.name)
        .exclude(pk=scenario.pk)
        .exists()
    )
    if taken:
        raise ValidationError(
            {"name": [f"This request already has a scenario named “{scenario.name}”."]}
        )


def scenario_create(
    *, capacity_request: CapacityRequest, user: Any, data: dict[str, Any]
) -> AwardScenario:
    """`data`: cleaned values for `SCENARIO_FIELDS` (from the form or the serializer)."""
    _check_open(capacity_request)
    scenario = AwardScenario(request=capacity_request, created_by=user, **data)
    scenario.full_clean(exclude=["request", "created_by"])
    _check_name_free(scenario)
    scenario.save()
    _audit(scenario, action="scenario.create", user=user, after=_definition(scenario))
    _queue(scenario)
    return scenario


@transaction.atomic
def scenario_update(*, scenario: AwardScenario, user: Any, data: dict[str, Any]) -> AwardScenario:
    _check_open(scenario.request)
    before = _definition(scenario)
    for name, value in data.items():
        setattr(scenario, name, value)
    scenario.full_clean(exclude=["request", "created_by"])
    _check_name_free(scenario)
    scenario.result, scenario.solved_at = {}, None
    scenario.save()
    _audit(scenario, action="scenario.edit", user=user, before=before, after=_definition(scenario))
    _queue(scenario)
    return scenario


@transaction.atomic
def scenario_solve_queue(*, scenario: AwardScenario, user: Any) -> AwardScenario:
    """Solve again: after a failure (Retry), or because the bids changed since."""
    _check_open(scenario.request)
    _audit(
        scenario,
        action="scenario.solve",
        user=user,
        before={"scenario": scenario.pk, "status": scenario.status},
    )
    _queue(scenario)
    return scenario


def _claim(scenario_id: int, revision: int) -> AwardScenario | None:
    with transaction.atomic():
        scenario = (
            AwardScenario.objects.select_for_update()
            .select_related("request")
            .filter(pk=scenario_id, revision=revision)
            .first()
        )
        if scenario is None or scenario.finished:
            return None  # edited since, or a redelivered task for an answer already stored
        scenario.status = ScenarioStatus.SOLVING
        scenario.attempts += 1
        scenario.save(update_fields=["status", "attempts", "updated_at"])
        return scenario


def _answer(scenario: AwardScenario) -> tuple[str, dict[str, Any], str]:
    inputs = award_inputs(capacity_request=scenario.request)
    try:
        result = award.solve(
            engine_scenario(scenario, inputs.providers),
            inputs.lots,
            inputs.offers,
            inputs.bundles,
            time_limit_s=SOLVE_TIME_LIMIT_S,
        )
    except award.AwardInputError as exc:
        return ScenarioStatus.FAILED, {}, f"The scenario cannot be solved: {exc}"
    stored = award.result_to_dict(result) | {
        "skipped_offers": inputs.skipped,
        "bid_revisions": inputs.revision_ids,
    }
    if result.status in ("optimal", "best_found"):
        return ScenarioStatus.SOLVED, stored, ""
    if result.status == "infeasible":
        return ScenarioStatus.INFEASIBLE, stored, ""
    return (
        ScenarioStatus.FAILED,
        stored,
        f"No allocation was found within {SOLVE_TIME_LIMIT_S:g} seconds. Retry, or loosen a rule.",
    )


def scenario_solve(*, scenario_id: int, revision: int) -> AwardScenario | None:
    """The task's body: solve and store once per revision; a second delivery does nothing."""
    scenario = _claim(scenario_id, revision)
    if scenario is None:
        return None
    try:
        status, result, error = _answer(scenario)
    except Exception as exc:  # any failure must reach the page with its reason and a Retry
        logger.exception("Solving scenario %s failed", scenario_id)
        status, result, error = ScenarioStatus.FAILED, {}, f"Solving failed: {exc}"
    with transaction.atomic():
        stored = AwardScenario.objects.filter(pk=scenario_id, revision=revision).update(
            status=status, result=result, error=error[:2000], solved_at=timezone.now()
        )
        if stored:
            scenario.status = status
            _audit(
                scenario,
                action="scenario.solved",
                user=None,
                after={
                    "scenario": scenario_id,
                    "status": status,
                    "cost": (result.get("figures") or {}).get("cost"),
                    "allocation": result.get("allocation", {}),
                },
            )
    scenario.refresh_from_db()
    return scenario


def cost_of(scenario: AwardScenario) -> Decimal | None:
    cost = (scenario.result.get("figures") or {}).get("cost")
    return Decimal(cost) if cost is not None else None
