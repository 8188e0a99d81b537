"""Solving a stored scenario on the worked example's request: the allocation, cost and the
cost of each rule of docs/award-optimisation.md, stored once per revision, audited."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from core.jobs import reap_stuck_jobs
from evaluation.models import AwardScenario
from evaluation.scenario_inputs import award_inputs
from evaluation.scenario_models import ScenarioStatus
from evaluation.scenario_services import scenario_solve
from tests.evaluation.scenarios.world import define

pytestmark = pytest.mark.django_db


def test_inputs_come_from_the_lots_and_latest_lot_offers(worked):
    inputs = award_inputs(capacity_request=worked)
    assert [lot.key for lot in inputs.lots] == ["Lot 1", "Lot 2", "Lot 3"]
    assert {(o.provider, o.lot, o.max_nodes, o.hours, o.region) for o in inputs.offers} == {
        ("Rival Cloud", "Lot 1", 32, 720, "us-east"),
        ("Rival Cloud", "Lot 2", 16, 720, "us-east"),
        ("Northwind", "Lot 1", 32, 720, "eu"),
        ("Northwind", "Lot 3", 8, 720, "eu"),
        ("Cirrus Compute", "Lot 2", 16, 720, "eu"),
    }
    assert all(Decimal(0) < o.useful_fraction <= 1 for o in inputs.offers)
    assert len(inputs.bundles) == 4


def test_the_solved_scenario_stores_the_worked_allocation_and_cost(worked, buyer):
    scenario = define(worked, buyer.user)
    solved = scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    assert solved is not None and solved.status == ScenarioStatus.SOLVED, solved.error
    result = solved.result
    assert result["status"] == "optimal"
    assert result["figures"]["cost"] == "677606.40"
    nodes = {(line["provider"], line["lot"]): line["nodes"] for line in result["lines"]}
    assert nodes == {
        ("Rival Cloud", "Lot 1"): 32,
        ("Rival Cloud", "Lot 2"): 10,
        ("Cirrus Compute", "Lot 2"): 6,
        ("Northwind", "Lot 3"): 8,
    }
    costs = {rc["rule"]: rc["cost_delta"] for rc in result["rule_costs"]}
    assert Decimal(costs["max_share"]) == Decimal("2073.60")
    assert Decimal(costs["min_regions"]) == 0
    assert AuditEntry.objects.filter(
        obj_key=f"scenario:{scenario.pk}", action="scenario.solved"
    ).exists()
    # A second delivery of the same task stores nothing new.
    assert scenario_solve(scenario_id=scenario.pk, revision=scenario.revision) is None


def test_an_infeasible_scenario_names_the_conflicting_rule(worked, buyer):
    scenario = define(worked, buyer.user, name="Cap 60 %", max_share_pct=Decimal("60"))
    solved = scenario_solve(scenario_id=scenario.pk, revision=scenario.revision)
    assert solved.status == ScenarioStatus.INFEASIBLE
    assert [c["rules"] for c in solved.result["conflicts"]] == [["max_share"]]


def test_a_scenario_left_solving_by_a_dead_worker_is_failed_with_the_reason(worked, buyer):
    scenario = define(worked, buyer.user)
    AwardScenario.objects.filter(pk=scenario.pk).update(
        status=ScenarioStatus.SOLVING, updated_at=timezone.now() - timedelta(hours=2)
    )
    assert reap_stuck_jobs()["award scenarios"] == 1
    scenario.refresh_from_db()
    assert scenario.status == ScenarioStatus.FAILED and scenario.error


def test_a_scenario_whose_message_never_arrived_is_failed_and_a_fresh_one_is_left(worked, buyer):
    lost = define(worked, buyer.user, name="Lost")
    fresh = define(worked, buyer.user, name="Fresh")
    AwardScenario.objects.filter(pk__in=[lost.pk, fresh.pk]).update(status=ScenarioStatus.QUEUED)
    AwardScenario.objects.filter(pk=lost.pk).update(updated_at=timezone.now() - timedelta(days=1))
    assert reap_stuck_jobs()["award scenarios"] == 1
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert lost.status == ScenarioStatus.FAILED and "no worker picked" in lost.error.lower()
    assert fresh.status == ScenarioStatus.QUEUED


def test_a_request_without_lots_is_one_lot_and_a_rule_moves_it_to_the_other_bid(world, buyer):
    cheapest = define(
        world.request, buyer.user, name="Cheapest", max_share_pct=None, min_regions=None
    )
    solved = scenario_solve(scenario_id=cheapest.pk, revision=cheapest.revision)
    assert solved.status == ScenarioStatus.SOLVED, solved.error
    (line,) = solved.result["lines"]
    assert line["lot"] == "Whole request" and line["gpus"] == world.request.gpu_count
    winner = next(
        b.provider for b in world.request.bids.all() if b.provider.name == line["provider"]
    )
    other = define(
        world.request,
        buyer.user,
        name="Not the cheapest",
        max_share_pct=None,
        min_regions=None,
        excluded_providers=[winner.pk],
    )
    solved = scenario_solve(scenario_id=other.pk, revision=other.revision)
    assert solved.status == ScenarioStatus.SOLVED, solved.error
    (line,) = solved.result["lines"]
    assert line["provider"] != winner.name
    cheapest.refresh_from_db()
    assert Decimal(solved.result["figures"]["cost"]) >= Decimal(cheapest.result["figures"]["cost"])
