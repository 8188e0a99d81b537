"""Single rules a buyer would notice: a lot kept in one fabric, a delivery region, an
incumbent's share, inputs the optimiser refuses by name, and a time limit that runs out."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from engine.award import AwardInputError, Bundle, LotSpec, Offer, Scenario, solve

from .example import BUNDLES, LOTS, OFFERS, SCENARIO

LOT = LotSpec("L", gpus=64, gpus_per_node=8, divisible=True)


def _offer(key: str, provider: str, nodes: int, price: str, fabric: str) -> Offer:
    return Offer(
        key=key,
        provider=provider,
        lot="L",
        max_nodes=nodes,
        price_per_gpu_hour=Decimal(price),
        hours=10,
        useful_fraction=Decimal("0.9"),
        region="EU",
        fabric_domain=fabric,
    )


SPLIT = (
    _offer("cheap", "North", 5, "2.00", "north-1"),
    _offer("dear", "North", 8, "2.50", "north-2"),
    _offer("other", "South", 8, "2.20", "south-1"),
)


def test_a_divisible_lot_splits_across_fabrics_unless_kept_in_one() -> None:
    free = solve(Scenario(), [LOT], SPLIT)
    whole = solve(Scenario(one_fabric_domain_per_lot=True), [LOT], SPLIT)

    # A node is 8 GPUs × 10 h = 80 GPU-hours: 5 × $160 + 3 × $176 against 8 × $176.
    assert free.allocation == {"cheap": 5, "other": 3}
    assert free.figures is not None and free.figures.cost == Decimal("1328.00")
    assert whole.allocation == {"other": 8}
    assert whole.figures is not None and whole.figures.cost == Decimal("1408.00")
    [rule] = whole.rule_costs
    assert (rule.rule, rule.label, rule.cost_delta) == (
        "fabric_domain",
        "every lot in one fabric domain",
        Decimal("80.00"),
    )


def test_a_lot_marked_for_one_fabric_is_kept_whole_without_a_scenario_rule() -> None:
    lot = replace(LOT, fabric_domain_required=True)

    result = solve(Scenario(), [lot], SPLIT)

    assert result.allocation == {"other": 8}
    assert [rule.label for rule in result.rule_costs] == ["lot L in one fabric domain"]


def test_offers_outside_the_lots_region_are_left_out_and_say_why() -> None:
    lots = (*LOTS[:2], replace(LOTS[2], region="US"))
    offers = (*OFFERS, replace(OFFERS[4], key="d1", provider="Dorado", region="US"))

    result = solve(SCENARIO, lots, offers, BUNDLES)

    assert result.ineligible == {"a2": "in EU; lot C is to be delivered in US"}
    assert result.status == "optimal"
    assert result.allocation["d1"] == 8


def test_an_incumbents_minimum_share_by_value_is_met() -> None:
    scenario = replace(
        SCENARIO, share_basis="value", max_share_pct=None, min_share_pct={"Cirrus": Decimal(15)}
    )

    result = solve(scenario, LOTS, OFFERS, BUNDLES)

    assert result.status == "optimal"
    assert result.figures is not None
    cirrus = sum(line.value for line in result.lines if line.provider == "Cirrus")
    assert cirrus >= result.figures.cost * Decimal("0.15")
    [rule] = [rule for rule in result.rule_costs if rule.rule == "min_share:Cirrus"]
    assert rule.label == "Cirrus at least 15 % of the value"
    assert rule.cost_delta is not None and rule.cost_delta > 0


def test_the_required_useful_hours_buy_better_goodput_at_a_price() -> None:
    # Without Borealis's all-or-nothing the cheapest award gives Aurora lot A
    # ($663,782.40, 286,617.6 useful GPU-hours); 290,000 useful GPU-hours take Borealis's A.
    bundles = BUNDLES[1:]
    scenario = replace(SCENARIO, required_useful_gpu_hours=Decimal(290_000))

    result = solve(scenario, LOTS, OFFERS, bundles)

    assert result.allocation == {"b1": 32, "b2": 10, "c1": 6, "a2": 8}
    assert result.figures is not None
    assert result.figures.cost == Decimal("677606.40")
    [rule] = [rule for rule in result.rule_costs if rule.rule == "required_useful"]
    assert (rule.cost_delta, rule.useful_delta) == (Decimal("13824.00"), Decimal("12441.60"))


def test_a_time_limit_that_runs_out_first_says_so() -> None:
    result = solve(SCENARIO, LOTS, OFFERS, BUNDLES, time_limit_s=0)

    assert result.status == "no_solution"
    assert result.lines == ()


@pytest.mark.parametrize(
    ("lots", "offers", "bundles", "field"),
    [
        ((replace(LOTS[0], gpus=250),), (), (), "lot A.gpus"),
        (LOTS, (replace(OFFERS[0], lot="Z"),), (), "offer a1.lot"),
        (
            LOTS,
            (replace(OFFERS[0], useful_fraction=Decimal("1.2")),),
            (),
            "offer a1.useful_fraction",
        ),
        (
            LOTS,
            OFFERS,
            (Bundle("Aurora", "discount", ("A", "C"), discount_pct=Decimal(0)),),
            "bundle 1 (Aurora).discount_pct",
        ),
        (LOTS, OFFERS, (Bundle("Aurora", "all_or_nothing", ("A",)),), "bundle 1 (Aurora).lots"),
        (LOTS, (OFFERS[0], OFFERS[0]), (), "offer a1"),
        ((), (), (), "lots"),
    ],
)
def test_unusable_input_is_refused_naming_the_field(
    lots: tuple[LotSpec, ...], offers: tuple[Offer, ...], bundles: tuple[Bundle, ...], field: str
) -> None:
    with pytest.raises(AwardInputError) as error:
        solve(SCENARIO, lots, offers, bundles)

    assert error.value.field == field


def test_the_ratio_objective_picks_the_more_useful_of_equally_priced_bids() -> None:
    # Three same-priced bids on lot P, one with better goodput. Each Dinkelbach round starts
    # HiGHS from the last allocation; HiGHS 1.16 once reported a better objective there than
    # the point it handed back, and the award stopped at the worse bid.
    lots = [
        LotSpec("P", gpus=8, gpus_per_node=8),
        LotSpec("Q", gpus=16, gpus_per_node=8, divisible=True),
        LotSpec("R", gpus=8, gpus_per_node=8),
    ]

    def bid(key: str, lot: str, nodes: int, useful: str) -> Offer:
        return Offer(key, "North", lot, nodes, Decimal("1.80"), 24, Decimal(useful), "EU", "n1")

    offers = [
        bid("p1", "P", 1, "0.80"),
        bid("p2", "P", 1, "0.80"),
        bid("p3", "P", 1, "0.88"),
        bid("q1", "Q", 2, "0.80"),
        bid("q2", "Q", 2, "0.80"),
        bid("r1", "R", 1, "0.80"),
    ]

    result = solve(Scenario(objective="max_useful_per_dollar"), lots, offers)

    assert result.status == "optimal"
    assert result.allocation["p3"] == 1
    assert result.figures is not None
    # (0.88 + 3 × 0.80) / 4 useful GPU-hours per paid GPU-hour, at $1.80.
    assert result.figures.useful_per_dollar == Decimal("0.82") / Decimal("1.80")
