"""`solve()`: check the inputs, optimise, then price every rule or name the conflicts."""

from __future__ import annotations

from collections.abc import Sequence
from time import perf_counter

from engine.lots.model import LotSpec

from . import figures as fig
from .formulation import ineligible_offers
from .model import (
    AwardInputError,
    AwardResult,
    Bundle,
    Offer,
    Scenario,
    check_bundle,
    check_lot,
    check_offer,
    check_scenario,
)
from .optimise import Problem, optimise
from .relax import conflicts, rule_costs, uncoverable_lots
from .rules import scenario_rules

DEFAULT_REL_GAP = 1e-6


def _checked_lots(lots: Sequence[LotSpec]) -> dict[str, LotSpec]:
    if not lots:  # nothing to award: the search for conflicts would never end
        raise AwardInputError("lots", "give at least one lot to award")
    by_key: dict[str, LotSpec] = {}
    for lot in lots:
        check_lot(lot)
        if lot.key in by_key:
            raise AwardInputError(f"lot {lot.key}", "appears twice")
        if lot.min_block_nodes > lot.nodes:
            raise AwardInputError(
                f"lot {lot.key}.min_block_nodes",
                f"{lot.min_block_nodes} is more than the lot's {lot.nodes} nodes",
            )
        by_key[lot.key] = lot
    return by_key


def _check(
    scenario: Scenario,
    lots: Sequence[LotSpec],
    offers: Sequence[Offer],
    bundles: Sequence[Bundle],
) -> dict[str, LotSpec]:
    check_scenario(scenario)
    by_key = _checked_lots(lots)
    seen: set[str] = set()
    for offer in offers:
        check_offer(offer, by_key)
        if offer.key in seen:
            raise AwardInputError(f"offer {offer.key}", "appears twice")
        seen.add(offer.key)
    for index, bundle in enumerate(bundles):
        check_bundle(index, bundle, by_key)
    return by_key


def _unsolved(
    problem: Problem, status: str, ineligible: dict[str, str], started: float
) -> AwardResult:
    """The answer without an allocation: infeasible (with what to drop) or out of time."""
    if status == "no_solution":
        return AwardResult(
            status="no_solution",
            objective=problem.scenario.objective,
            ineligible=ineligible,
            wall_s=perf_counter() - started,
        )
    found = conflicts(problem)
    return AwardResult(
        status="infeasible",
        objective=problem.scenario.objective,
        conflicts=found,
        uncoverable_lots=() if found else uncoverable_lots(problem),
        ineligible=ineligible,
        wall_s=perf_counter() - started,
    )


def solve(
    scenario: Scenario,
    lots: Sequence[LotSpec],
    offers: Sequence[Offer],
    bundles: Sequence[Bundle] = (),
    *,
    time_limit_s: float = 30.0,
    with_rule_costs: bool = True,
    rel_gap: float = DEFAULT_REL_GAP,
) -> AwardResult:
    """The best award for `scenario`, within `time_limit_s` seconds in all.

    The time limit covers the main solve and every relaxation after it; rule costs the time
    left no longer allows are reported as "not_computed". Raises `AwardInputError` naming the
    field when an input is unusable; an infeasible scenario is an answer, not an error.
    """
    started = perf_counter()
    by_key = _check(scenario, lots, offers, bundles)
    ineligible = ineligible_offers(by_key, offers)
    eligible = [offer for offer in offers if offer.key not in ineligible]
    problem = Problem(
        scenario=scenario,
        lots=by_key,
        offers=eligible,
        bundles=tuple(bundles),
        rules=scenario_rules(scenario, by_key, eligible, bundles),
        deadline=started + time_limit_s,
        rel_gap=rel_gap,
    )
    base = optimise(problem)
    if base.status in ("infeasible", "no_solution"):
        return _unsolved(problem, base.status, ineligible, started)
    awarded = fig.lines(by_key, eligible, base.nodes)
    figures = fig.figures(awarded, problem.bundles)
    return AwardResult(
        status="optimal" if base.status == "optimal" else "best_found",
        objective=scenario.objective,
        lines=awarded,
        figures=figures,
        mip_gap=base.gap,
        iterations=base.iterations,
        rule_costs=rule_costs(problem, base, figures) if with_rule_costs else (),
        ineligible=ineligible,
        wall_s=perf_counter() - started,
    )
