"""Scenarios side by side: one column per scenario; rows for the GPUs each provider gets on
each lot, the cost, useful GPU-hours and their ratio, the status with its gap, what each rule
costs and, when infeasible, the rules in conflict. Built from the stored answers alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from evaluation.scenario_models import AwardScenario, ScenarioStatus


@dataclass(frozen=True)
class Column:
    scenario: AwardScenario
    status_text: str
    cost: Decimal | None
    useful: Decimal | None
    per_dollar: Decimal | None
    rule_costs: dict[str, dict[str, Any]]
    conflicts: list[str]
    stale: bool = False  # solved on bid revisions that are no longer the latest


@dataclass
class Table:
    columns: list[Column] = field(default_factory=list)
    allocation: list[tuple[str, str, list[str]]] = field(default_factory=list)
    rules: list[tuple[str, list[str]]] = field(default_factory=list)


def _dec(value: object) -> Decimal | None:
    return Decimal(str(value)) if value not in (None, "") else None


def _status_text(scenario: AwardScenario) -> str:
    result = scenario.result or {}
    if scenario.status == ScenarioStatus.SOLVED and result.get("status") == "best_found":
        gap = result.get("mip_gap") or 0
        return f"Best found, within {float(gap) * 100:.2f} % of optimal"
    if scenario.status == ScenarioStatus.SOLVED:
        return "Optimal"
    return scenario.get_status_display()


def _column(scenario: AwardScenario, current: list[int] | None) -> Column:
    result = scenario.result or {}
    read = result.get("bid_revisions")
    figures = result.get("figures") or {}
    conflicts = [" + ".join(c.get("labels") or c["rules"]) for c in result.get("conflicts", [])]
    conflicts += [
        f"{lot}: no eligible offers cover it" for lot in result.get("uncoverable_lots", [])
    ]
    return Column(
        scenario=scenario,
        status_text=_status_text(scenario),
        cost=_dec(figures.get("cost")),
        useful=_dec(figures.get("useful_gpu_hours")),
        per_dollar=_dec(figures.get("useful_per_dollar")),
        rule_costs={rc["rule"]: rc for rc in result.get("rule_costs", [])},
        conflicts=conflicts,
        stale=current is not None and read is not None and sorted(read) != current,
    )


def _rule_cell(rule: dict[str, Any] | None) -> str:
    if rule is None:
        return ""
    cost, useful = _dec(rule.get("cost_delta")), _dec(rule.get("useful_delta"))
    if cost is None:
        return "not computed" if rule.get("status") == "not_computed" else "—"
    return f"${cost:,.2f} · {useful or 0:+,.1f} useful GPU-h"


def scenario_table(
    scenarios: list[AwardScenario], *, current_revisions: list[int] | None = None
) -> Table:
    """`current_revisions`: the bid revisions a solve would read now (`current_revision_ids`);
    answers solved on others are marked stale."""
    table = Table(columns=[_column(s, current_revisions) for s in scenarios])
    cells: dict[tuple[str, str], dict[int, str]] = {}
    for i, scenario in enumerate(scenarios):
        for line in (scenario.result or {}).get("lines", []):
            nodes = line["nodes"]
            text = f"{line['gpus']} GPUs ({nodes} node{'' if nodes == 1 else 's'})"
            cells.setdefault((line["lot"], line["provider"]), {})[i] = text
    table.allocation = [
        (lot, provider, [by_col.get(i, "") for i in range(len(scenarios))])
        for (lot, provider), by_col in sorted(cells.items())
    ]
    labels: dict[str, str] = {}
    for column in table.columns:
        for key, rc in column.rule_costs.items():
            labels.setdefault(key, rc.get("label") or key)
    table.rules = [
        (labels[key], [_rule_cell(c.rule_costs.get(key)) for c in table.columns])
        for key in sorted(labels)
    ]
    return table
