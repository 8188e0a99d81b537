"""An infeasible scenario names the rules to drop, alone or in pairs, or the lots no offers
can cover."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from engine.award import LotSpec, solve

from .example import BUNDLES, LOTS, OFFERS, SCENARIO, TIGHT


def test_excluding_cirrus_names_the_three_rules_that_each_conflict() -> None:
    scenario = replace(SCENARIO, excluded_providers=frozenset({"Cirrus"}))

    result = solve(scenario, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "infeasible"
    assert result.lines == ()
    assert result.figures is None
    assert [conflict.rules for conflict in result.conflicts] == [
        ("max_share",),
        ("excluded:Cirrus",),
        ("bundle:1",),
    ]
    assert result.conflicts[2].labels == ("Borealis: A + B together or not at all",)
    assert result.uncoverable_lots == ()


def test_a_share_cap_below_what_the_bundles_allow_is_the_one_rule_to_blame() -> None:
    result = solve(TIGHT, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "infeasible"
    assert [conflict.rules for conflict in result.conflicts] == [("max_share",)]


def test_when_no_single_rule_is_to_blame_the_pairs_are_named() -> None:
    scenario = replace(SCENARIO, excluded_providers=frozenset({"Cirrus", "Borealis"}))

    result = solve(scenario, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "infeasible"
    assert [conflict.rules for conflict in result.conflicts] == [
        ("max_share", "excluded:Borealis"),
        ("excluded:Borealis", "excluded:Cirrus"),
        ("excluded:Borealis", "bundle:1"),
    ]


def test_a_lot_nobody_can_cover_is_named_when_no_rule_is_to_blame() -> None:
    lots = (*LOTS, LotSpec("D", gpus=512, gpus_per_node=8, divisible=False))

    result = solve(SCENARIO, lots, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "infeasible"
    assert result.conflicts == ()
    assert result.uncoverable_lots == ("D",)


def test_a_budget_below_the_cheapest_award_is_named() -> None:
    scenario = replace(SCENARIO, budget=Decimal("650000"))

    result = solve(scenario, LOTS, OFFERS, BUNDLES, time_limit_s=30)

    assert result.status == "infeasible"
    assert [conflict.rules for conflict in result.conflicts] == [("budget",)]
