"""The worked example of docs/award-optimisation.md, solved: the allocation, the cost and the
cost of each rule are the ones worked by hand there."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

from engine.award import result_to_dict, solve

from .example import BUNDLES, LOTS, OFFERS, SCENARIO


def test_the_solver_finds_the_allocation_worked_by_hand() -> None:
    result = solve(SCENARIO, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "optimal"
    assert result.allocation == {"b1": 32, "b2": 10, "c1": 6, "a2": 8}
    assert [(line.offer, line.gpus, line.value) for line in result.lines] == [
        ("b1", 256, Decimal("387072.00")),
        ("b2", 80, Decimal("126720.00")),
        ("c1", 48, Decimal("74304.00")),
        ("a2", 64, Decimal("115200.00")),
    ]
    assert result.figures is not None
    assert result.figures.list_value == Decimal("703296.00")
    assert result.figures.discount == Decimal("25689.60")
    assert result.figures.cost == Decimal("677606.40")
    assert result.figures.useful_gpu_hours == Decimal("299059.20")


def test_each_rule_costs_what_the_hand_working_says() -> None:
    result = solve(SCENARIO, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    costs = {rule.rule: (rule.cost_delta, rule.useful_delta) for rule in result.rule_costs}
    assert costs == {
        "max_share": (Decimal("2073.60"), Decimal("-1382.40")),
        "min_regions": (Decimal(0), Decimal(0)),
        "bundle:1": (Decimal("13824.00"), Decimal("12441.60")),
        "bundle:4": (Decimal(0), Decimal(0)),
    }
    labels = {rule.rule: rule.label for rule in result.rule_costs}
    assert labels["max_share"] == "no provider over 75 % of the GPUs"
    assert labels["bundle:1"] == "Borealis: A + B together or not at all"
    assert all(rule.status == "optimal" for rule in result.rule_costs)


def test_the_ratio_objective_keeps_the_allocation_and_prices_the_rules_by_ratio() -> None:
    scenario = replace(SCENARIO, objective="max_useful_per_dollar")

    result = solve(scenario, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "optimal"
    assert result.allocation == {"b1": 32, "b2": 10, "c1": 6, "a2": 8}
    assert result.figures is not None
    assert round(result.figures.useful_per_dollar, 6) == Decimal("0.441346")
    costs = {rule.rule: rule.cost_delta for rule in result.rule_costs}
    # Without the share cap the ratio is best with all of B from Borealis (as for cost);
    # without Borealis's all-or-nothing the best ratio is still this award.
    assert costs == {
        "max_share": Decimal("2073.60"),
        "min_regions": Decimal(0),
        "bundle:1": Decimal(0),
        "bundle:4": Decimal(0),
    }


def test_the_answer_travels_as_json_with_its_cents_intact() -> None:
    result = solve(SCENARIO, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    stored = json.loads(json.dumps(result_to_dict(result)))

    assert stored["status"] == "optimal"
    assert stored["allocation"] == {"b1": 32, "b2": 10, "c1": 6, "a2": 8}
    assert stored["figures"]["cost"] == "677606.40"
    assert stored["lines"][0]["offer"] == "b1"
    assert stored["rule_costs"][2] == {
        "rule": "bundle:1",
        "label": "Borealis: A + B together or not at all",
        "status": "optimal",
        "cost_delta": "13824.00",
        "useful_delta": "12441.60",
        "useful_per_dollar_delta": stored["rule_costs"][2]["useful_per_dollar_delta"],
    }
