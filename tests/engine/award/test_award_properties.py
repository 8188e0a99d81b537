"""On small random requests the solver agrees with a brute-force enumeration of every
allocation: same feasibility, same best cost or ratio, and its allocation breaks no rule."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.award import Bundle, LotSpec, Offer, Scenario, solve

from . import oracle

PROVIDERS = ("P0", "P1", "P2")


@st.composite
def requests(draw: st.DrawFn) -> tuple[Scenario, list[LotSpec], list[Offer], list[Bundle]]:
    lots = []
    for index in range(draw(st.integers(1, 3))):
        nodes = draw(st.integers(1, 4))
        divisible = draw(st.booleans())
        lots.append(
            LotSpec(
                key=f"L{index}",
                gpus=nodes * 8,
                gpus_per_node=8,
                divisible=divisible,
                min_block_nodes=draw(st.integers(1, nodes)) if divisible else 1,
                fabric_domain_required=draw(st.booleans()),
            )
        )
    offers = []
    for lot in lots:
        for index in range(draw(st.integers(1, 3))):
            offers.append(
                Offer(
                    key=f"{lot.key}o{index}",
                    provider=draw(st.sampled_from(PROVIDERS)),
                    lot=lot.key,
                    max_nodes=draw(st.just(lot.nodes) | st.integers(1, lot.nodes)),
                    price_per_gpu_hour=Decimal(
                        draw(st.sampled_from(["1.80", "2.00", "2.15", "2.40"]))
                    ),
                    hours=draw(st.sampled_from([24, 48])),
                    useful_fraction=Decimal(draw(st.sampled_from(["0.80", "0.88", "0.95"]))),
                    region=draw(st.sampled_from(["EU", "US"])),
                    fabric_domain=draw(st.sampled_from(["f1", "f2"])),
                )
            )
    keys = [lot.key for lot in lots]
    bundles = []
    if len(lots) >= 2:
        for _ in range(draw(st.integers(0, 2))):
            pair = tuple(draw(st.permutations(keys))[:2])
            kind = draw(st.sampled_from(["all_or_nothing", "discount", "max_total"]))
            if kind == "max_total" and draw(st.booleans()):
                pair = ()  # a cap on everything the provider supplies
            bundles.append(
                Bundle(
                    provider=draw(st.sampled_from(PROVIDERS)),
                    kind=kind,
                    lots=pair,
                    discount_pct=Decimal(draw(st.sampled_from([3, 5, 10]))),
                    max_gpus=draw(st.sampled_from([8, 16, 24])) if kind == "max_total" else None,
                )
            )

    def sometimes(value: object) -> object:
        """Each rule is in force in about a third of the scenarios, so most are feasible."""
        return draw(st.sampled_from([None, None, value]))

    scenario = Scenario(
        objective=draw(st.sampled_from(["min_cost_for_required_useful", "max_useful_per_dollar"])),
        min_providers=sometimes(2),
        max_providers=sometimes(2),
        max_share_pct=sometimes(draw(st.sampled_from([Decimal(50), Decimal(75)]))),
        share_basis=draw(st.sampled_from(["gpus", "value"])),
        min_share_pct=sometimes({"P1": Decimal(20)}) or {},
        min_regions=sometimes(2),
        excluded_providers=sometimes(frozenset({"P2"})) or frozenset(),
        one_fabric_domain_per_lot=draw(st.booleans()),
        budget=sometimes(draw(st.sampled_from([Decimal(3000), Decimal(6000)]))),
        required_useful_gpu_hours=sometimes(draw(st.sampled_from([Decimal(500), Decimal(1500)]))),
    )
    return scenario, lots, offers, bundles


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_the_solver_agrees_with_brute_force(
    request: tuple[Scenario, list[LotSpec], list[Offer], list[Bundle]],
) -> None:
    scenario, lots, offers, bundles = request

    result = solve(scenario, lots, offers, bundles, time_limit_s=20, with_rule_costs=False)
    expected = oracle.best(scenario, lots, offers, bundles)

    if expected is None:
        assert result.status == "infeasible"
        alone = {
            next(iter(broken))
            for nodes in oracle.allocations(lots, offers)
            if len(broken := set(oracle.breaks(scenario, lots, offers, bundles, nodes))) == 1
        }
        if alone:
            assert {conflict.rules for conflict in result.conflicts} == {(key,) for key in alone}
        return
    assert result.status == "optimal"
    nodes = result.allocation
    assert oracle.breaks(scenario, lots, offers, bundles, nodes) == []
    for offer in offers:
        assert nodes.get(offer.key, 0) <= offer.max_nodes
    for lot in lots:
        assert sum(n for key, n in nodes.items() if key.startswith(f"{lot.key}o")) == lot.nodes
    cost, useful, _, _ = oracle.totals(lots, offers, bundles, nodes)
    assert result.figures is not None
    assert (result.figures.cost, result.figures.useful_gpu_hours) == (cost, useful)
    if scenario.objective == "min_cost_for_required_useful":
        assert cost == expected
    else:
        assert abs(useful / cost - expected) <= expected * Decimal("1e-6")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_each_rule_costs_what_brute_force_says(
    request: tuple[Scenario, list[LotSpec], list[Offer], list[Bundle]],
) -> None:
    scenario, lots, offers, bundles = request
    scenario = replace(scenario, objective="min_cost_for_required_useful")

    result = solve(scenario, lots, offers, bundles, time_limit_s=60)

    if result.status != "optimal":
        return
    assert result.figures is not None
    for rule in result.rule_costs:
        without = oracle.best(scenario, lots, offers, bundles, ignore=rule.rule)
        assert without is not None, rule.rule
        assert rule.status == "optimal"
        assert rule.cost_delta == result.figures.cost - without, rule.rule
