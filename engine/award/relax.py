"""Relaxations: what each rule costs, and which rules make a scenario infeasible.

Both drop rules one at a time and solve again. A rule's cost compares the scenario's optimum
with the optimum of the same scenario without that rule (the full scenario's allocation is a
first incumbent there, so each relaxed solve starts from a feasible point). For an infeasible
scenario, every rule whose removal alone makes it feasible is a conflict; when no single rule
does, pairs are tried; when even dropping every rule leaves it infeasible, the lots that no
eligible offers can cover are named instead.
"""

from __future__ import annotations

from itertools import combinations

from .formulation import Rule, build
from .mip import run
from .model import Conflict, Figures, RuleCost
from .optimise import Problem, Solved, optimise

MAX_PAIRS = 200


def _better(problem: Problem, relaxed: Figures, base: Figures) -> bool:
    """Whether dropping rules found a better award than the scenario's own."""
    if problem.scenario.objective == "min_cost_for_required_useful":
        return relaxed.cost < base.cost
    return relaxed.useful_per_dollar > base.useful_per_dollar


def _priced(rule: Rule, relaxed: Solved, without: Figures | None, base: Figures) -> RuleCost:
    if without is None:
        return RuleCost(rule.key, rule.label, relaxed.status, None, None, None)
    return RuleCost(
        rule=rule.key,
        label=rule.label,
        status=relaxed.status,
        cost_delta=base.cost - without.cost,
        useful_delta=base.useful_gpu_hours - without.useful_gpu_hours,
        useful_per_dollar_delta=base.useful_per_dollar - without.useful_per_dollar,
    )


def _price(
    problem: Problem, base: Solved, figures: Figures, group: list[Rule], out: dict[str, RuleCost]
) -> None:
    """Price `group` together first: when dropping all of it finds nothing better, the
    scenario's allocation stays optimal without any one of them, and each costs nothing;
    otherwise split it in halves. Bundles are many and seldom bind, so this saves solves."""
    if problem.remaining() <= 0:
        out |= {
            rule.key: RuleCost(rule.key, rule.label, "not_computed", None, None, None)
            for rule in group
        }
        return
    relaxed = optimise(problem, drop=frozenset(rule.key for rule in group), start=base.nodes)
    without = problem.figures(relaxed.nodes) if relaxed.nodes else None
    if without is not None and not _better(problem, without, figures):
        out |= {rule.key: _priced(rule, relaxed, figures, figures) for rule in group}
    elif len(group) == 1:
        out[group[0].key] = _priced(group[0], relaxed, without, figures)
    else:
        half = len(group) // 2
        _price(problem, base, figures, group[:half], out)
        _price(problem, base, figures, group[half:], out)


def rule_costs(problem: Problem, base: Solved, figures: Figures) -> tuple[RuleCost, ...]:
    """For every rule in force: this scenario's figures less those without the rule.

    A rule costs nothing (all deltas zero) when the scenario's own allocation is still
    optimal without it, even where another allocation would tie with it.
    """
    rules = [rule for rule, _ in problem.rules]
    out: dict[str, RuleCost] = {}
    for rule in rules:
        if not rule.key.startswith("bundle:"):
            _price(problem, base, figures, [rule], out)
    _price(problem, base, figures, [r for r in rules if r.key.startswith("bundle:")], out)
    return tuple(out[rule.key] for rule in rules)


def _feasible(problem: Problem, drop: frozenset[str]) -> bool | None:
    """Whether some allocation meets every rule but `drop`; None when time ran out first."""
    form = build(problem.lots, problem.offers, problem.bundles, problem.rules, drop=drop)
    outcome = run(form.program, {}, time_limit_s=problem.remaining(), rel_gap=1.0)
    if outcome.status == "infeasible":
        return False
    return True if outcome.values else None


def conflicts(problem: Problem) -> tuple[Conflict, ...]:
    """The rules, alone or in pairs, whose removal makes the scenario feasible."""
    labels = {rule.key: rule.label for rule, _ in problem.rules}
    keys = list(labels)
    singles = [key for key in keys if _feasible(problem, frozenset({key}))]
    if singles:
        return tuple(Conflict((key,), (labels[key],)) for key in singles)
    pairs = []
    for pair in list(combinations(keys, 2))[:MAX_PAIRS]:
        if problem.remaining() <= 0:
            break
        if _feasible(problem, frozenset(pair)):
            pairs.append(Conflict(pair, tuple(labels[key] for key in pair)))
    return tuple(pairs)


def uncoverable_lots(problem: Problem) -> tuple[str, ...]:
    """Lots the eligible offers cannot cover exactly, whatever the rules say."""
    out = []
    for key, lot in problem.lots.items():
        offers = [offer for offer in problem.offers if offer.lot == key]
        alone = Problem(
            scenario=problem.scenario,
            lots={key: lot},
            offers=offers,
            bundles=(),
            rules=(),
            deadline=problem.deadline,
            rel_gap=problem.rel_gap,
        )
        if _feasible(alone, frozenset()) is False:
            out.append(key)
    return tuple(out)
