"""One optimisation of a scenario (with some rules dropped, for relaxations and rule costs).

`min_cost_for_required_useful` is one MIP: minimise cost. `max_useful_per_dollar` maximises
the ratio U/C of useful GPU-hours to dollars, which is not linear; Dinkelbach's parametric
method solves it exactly as a sequence of MIPs: from an allocation with ratio λ, maximise
U − λ·C; while the best value is above zero (beyond the tolerance), the allocation found has a
higher ratio, so λ takes its ratio and the MIP is solved again. When it is zero no allocation
beats λ, and the last allocation is optimal. Every lot is covered exactly, so the paid GPU-hours
are fixed by the request and the ratio trades the price paid against the useful fraction won.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from time import perf_counter

from engine.lots.model import LotSpec

from . import figures as fig
from .formulation import Builder, Formulation, Rule, build
from .mip import Outcome, run
from .model import Bundle, Figures, Offer, Scenario

MAX_DINKELBACH_ROUNDS = 50


@dataclass(frozen=True)
class Problem:
    """Everything one solve call needs, and the instant its time runs out."""

    scenario: Scenario
    lots: Mapping[str, LotSpec]
    offers: Sequence[Offer]
    bundles: Sequence[Bundle]
    rules: Sequence[tuple[Rule, Builder]]
    deadline: float
    rel_gap: float

    def remaining(self) -> float:
        return self.deadline - perf_counter()

    def figures(self, nodes: Mapping[str, int]) -> Figures:
        return fig.figures(fig.lines(self.lots, self.offers, nodes), self.bundles)


@dataclass(frozen=True)
class Solved:
    """ "optimal", "best_found", "infeasible" or "no_solution"; the nodes per offer key."""

    status: str
    nodes: Mapping[str, int]
    gap: float | None = None
    iterations: int = 0


def _nodes(form: Formulation, outcome: Outcome) -> dict[str, int]:
    return {key: round(outcome.values[column]) for key, column in form.nodes.items()}


def _hint(form: Formulation, nodes: Mapping[str, int] | None) -> dict[int, float] | None:
    if nodes is None:
        return None
    hint = {form.nodes[key]: float(count) for key, count in nodes.items() if key in form.nodes}
    hint |= {form.used[key]: float(count > 0) for key, count in nodes.items() if key in form.used}
    return hint


def optimise(
    problem: Problem,
    *,
    drop: frozenset[str] = frozenset(),
    start: Mapping[str, int] | None = None,
) -> Solved:
    """The best allocation with every rule in force but those in `drop`.

    `start` is an allocation known to be feasible (the full scenario's, when a rule is
    dropped): HiGHS starts from it, and Dinkelbach's first λ is its ratio.
    """
    form = build(problem.lots, problem.offers, problem.bundles, problem.rules, drop=drop)
    if problem.scenario.objective == "min_cost_for_required_useful" or start is None:
        first = run(
            form.program,
            form.cost_terms(),
            time_limit_s=problem.remaining(),
            rel_gap=problem.rel_gap,
            start=_hint(form, start),
        )
        if first.status in ("infeasible", "none"):
            return Solved("infeasible" if first.status == "infeasible" else "no_solution", {})
        status = "optimal" if first.status == "optimal" else "best_found"
        solved = Solved(status, _nodes(form, first), first.gap, 1)
        if problem.scenario.objective == "min_cost_for_required_useful":
            return solved
        start = solved.nodes
    return _dinkelbach(problem, form, start)


def _cost_floor(problem: Problem) -> float:
    """A lower bound on any allocation's cost: each lot at its cheapest offer, less every
    discount at its rate (used only to bound the ratio when time runs out)."""
    floor = 0.0
    for lot in problem.lots.values():
        prices = [float(o.price_per_gpu_hour) * o.hours for o in problem.offers if o.lot == lot.key]
        floor += min(prices, default=0.0) * lot.gpus
    rates = [b.discount_pct for b in problem.bundles if b.kind == "discount"]
    return floor * (1 - float(sum(rates, Decimal(0))) / 100)


def _ratio(problem: Problem, nodes: Mapping[str, int]) -> tuple[float, float]:
    figures = problem.figures(nodes)
    return float(figures.useful_per_dollar), float(figures.useful_gpu_hours)


def _dinkelbach(problem: Problem, form: Formulation, start: Mapping[str, int]) -> Solved:
    current = dict(start)
    ratio, useful = _ratio(problem, current)
    upper = float("inf")
    cost_terms = form.cost_terms()
    for rounds in range(1, MAX_DINKELBACH_ROUNDS + 1):
        terms = form.useful_terms()
        for column, coef in cost_terms.items():
            terms[column] = terms.get(column, 0.0) - ratio * coef
        tolerance = problem.rel_gap * useful
        outcome = run(
            form.program,
            terms,
            maximise=True,
            time_limit_s=problem.remaining(),
            rel_gap=problem.rel_gap,
            abs_gap=tolerance,
            start=_hint(form, current),
        )
        if outcome.bound is not None and (floor := _cost_floor(problem)) > 0:
            upper = min(upper, ratio + max(outcome.bound, 0.0) / floor)
        if outcome.status == "optimal" and (outcome.objective or 0.0) <= tolerance:
            return Solved("optimal", current, 0.0, rounds)
        if outcome.status in ("infeasible", "none") or not outcome.values:
            break
        found = _nodes(form, outcome)
        found_ratio, found_useful = _ratio(problem, found)
        if found_ratio <= ratio:
            break  # the solver claims better than it shows: keep λ's allocation, not "optimal"
        current, ratio, useful = found, found_ratio, found_useful
    gap = (upper - ratio) / ratio if ratio > 0 and upper < float("inf") else None
    return Solved("best_found", current, gap, rounds)
