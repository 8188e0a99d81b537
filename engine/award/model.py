"""The award optimiser's input and output records, and the checks on the inputs.

Money is `Decimal` on the way in and out; the solver works in floats, and every figure handed
back is recomputed exactly from the integer allocation it found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from engine.lots.model import LotSpec

Objective = Literal["max_useful_per_dollar", "min_cost_for_required_useful"]
OBJECTIVES: tuple[str, ...] = ("max_useful_per_dollar", "min_cost_for_required_useful")
BundleKind = Literal["all_or_nothing", "discount", "max_total"]
BUNDLE_KINDS: tuple[str, ...] = ("all_or_nothing", "discount", "max_total")
ShareBasis = Literal["gpus", "value"]
Status = Literal["optimal", "best_found", "infeasible", "no_solution"]


class AwardInputError(ValueError):
    """An input record holds a value the optimiser cannot use; `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class Offer:
    """One bid line: up to `max_nodes` nodes of `lot` at `price_per_gpu_hour` for `hours`.

    `useful_fraction` is useful GPU-hours per paid GPU-hour (the scoring's goodput, after
    failures, restarts and checkpoints), so a node's useful hours are its paid hours × it.
    """

    key: str
    provider: str
    lot: str
    max_nodes: int
    price_per_gpu_hour: Decimal
    hours: int
    useful_fraction: Decimal
    region: str
    fabric_domain: str


@dataclass(frozen=True)
class Bundle:
    """A provider's condition on its own offers, as bid.

    - `all_or_nothing`: the provider wins some of every lot in `lots`, or none of them.
    - `discount`: `discount_pct` off the provider's awarded value on `lots` when it wins some of
      every one of them.
    - `max_total`: at most `max_gpus` GPUs across `lots` (all lots when `lots` is empty).
    """

    provider: str
    kind: BundleKind
    lots: tuple[str, ...] = ()
    discount_pct: Decimal = Decimal(0)
    max_gpus: int | None = None

    @property
    def label(self) -> str:
        lots = " + ".join(self.lots) or "all lots"
        if self.kind == "discount":
            return f"{self.provider}: −{self.discount_pct} % if awarded {lots}"
        if self.kind == "max_total":
            return f"{self.provider}: at most {self.max_gpus} GPUs on {lots}"
        return f"{self.provider}: {lots} together or not at all"


@dataclass(frozen=True)
class Scenario:
    """The buyer's objective and business rules. Every rule left at its default is off.

    Shares are percentages (60 means 60 %) of the award's GPUs or of its value (after
    discounts), as `share_basis` says; both the maximum and the named minimums use it.
    `one_fabric_domain_per_lot` keeps every lot in one fabric domain (lots marked
    `fabric_domain_required` always are). `required_useful_gpu_hours` is the floor the
    `min_cost_for_required_useful` objective must reach; the other objective ignores it.
    """

    objective: Objective = "min_cost_for_required_useful"
    min_providers: int | None = None
    max_providers: int | None = None
    max_share_pct: Decimal | None = None
    share_basis: ShareBasis = "gpus"
    min_share_pct: Mapping[str, Decimal] = field(default_factory=dict)
    min_regions: int | None = None
    budget: Decimal | None = None
    excluded_providers: frozenset[str] = frozenset()
    one_fabric_domain_per_lot: bool = False
    required_useful_gpu_hours: Decimal | None = None


@dataclass(frozen=True)
class Line:
    """What one offer is awarded: nodes, GPUs, its value at the bid price, its useful hours."""

    offer: str
    provider: str
    lot: str
    nodes: int
    gpus: int
    value: Decimal
    useful_gpu_hours: Decimal


@dataclass(frozen=True)
class Figures:
    """An allocation's totals: list value, bundle discounts, cost, useful GPU-hours, ratio."""

    list_value: Decimal
    discount: Decimal
    cost: Decimal
    useful_gpu_hours: Decimal

    @property
    def useful_per_dollar(self) -> Decimal:
        return self.useful_gpu_hours / self.cost if self.cost else Decimal(0)


@dataclass(frozen=True)
class RuleCost:
    """What one rule costs: this scenario's figures less the same scenario's without the rule.

    A positive `cost_delta` is dollars the rule adds; a negative `useful_delta` is useful
    GPU-hours it gives up. `status` is that of the solve without the rule ("not_computed" when
    the time limit ran out first); the deltas are None unless it found an allocation.
    """

    rule: str
    label: str
    status: str
    cost_delta: Decimal | None
    useful_delta: Decimal | None
    useful_per_dollar_delta: Decimal | None


@dataclass(frozen=True)
class Conflict:
    """Rules whose removal, together, makes an infeasible scenario feasible."""

    rules: tuple[str, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class AwardResult:
    """The solver's answer.

    `status` is "optimal", "best_found" (the time limit stopped the search; `mip_gap` is the
    relative gap left), "infeasible" (`conflicts` says which rules to drop, and
    `uncoverable_lots` names lots no eligible offers can cover even with every rule dropped) or
    "no_solution" (the time limit ran out before any allocation was found).
    """

    status: Status
    objective: Objective
    lines: tuple[Line, ...] = ()
    figures: Figures | None = None
    mip_gap: float | None = None
    iterations: int = 0
    rule_costs: tuple[RuleCost, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    uncoverable_lots: tuple[str, ...] = ()
    ineligible: Mapping[str, str] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def allocation(self) -> dict[str, int]:
        """Offer key → awarded nodes, for the offers awarded anything."""
        return {line.offer: line.nodes for line in self.lines}


def _need(condition: bool, field_name: str, message: str) -> None:
    if not condition:
        raise AwardInputError(field_name, message)


def check_lot(lot: LotSpec) -> None:
    name = f"lot {lot.key}"
    _need(lot.gpus_per_node > 0, f"{name}.gpus_per_node", "must be a positive whole number")
    _need(lot.gpus > 0, f"{name}.gpus", "must be a positive whole number")
    _need(
        lot.gpus % lot.gpus_per_node == 0,
        f"{name}.gpus",
        f"{lot.gpus} is not a whole number of {lot.gpus_per_node}-GPU nodes",
    )
    _need(lot.min_block_nodes >= 1, f"{name}.min_block_nodes", "must be at least 1")


def check_offer(offer: Offer, lots: Mapping[str, LotSpec]) -> None:
    name = f"offer {offer.key}"
    _need(offer.lot in lots, f"{name}.lot", f"no lot {offer.lot!r} in this request")
    _need(offer.max_nodes >= 0, f"{name}.max_nodes", "must not be negative")
    _need(offer.hours > 0, f"{name}.hours", "must be positive")
    _need(offer.price_per_gpu_hour > 0, f"{name}.price_per_gpu_hour", "must be positive")
    _need(
        Decimal(0) < offer.useful_fraction <= 1,
        f"{name}.useful_fraction",
        "must be above 0 and at most 1",
    )


def check_bundle(index: int, bundle: Bundle, lots: Mapping[str, LotSpec]) -> None:
    name = f"bundle {index + 1} ({bundle.provider})"
    _need(bundle.kind in BUNDLE_KINDS, f"{name}.kind", f"must be one of {', '.join(BUNDLE_KINDS)}")
    for lot in bundle.lots:
        _need(lot in lots, f"{name}.lots", f"no lot {lot!r} in this request")
    if bundle.kind != "max_total":
        _need(len(set(bundle.lots)) >= 2, f"{name}.lots", "names at least two lots")
    if bundle.kind == "discount":
        _need(0 < bundle.discount_pct < 100, f"{name}.discount_pct", "must be between 0 and 100")
    if bundle.kind == "max_total":
        _need(
            bundle.max_gpus is not None and bundle.max_gpus >= 0,
            f"{name}.max_gpus",
            "must be a whole number of GPUs, 0 or more",
        )


def check_scenario(scenario: Scenario) -> None:
    _need(scenario.objective in OBJECTIVES, "objective", f"must be one of {', '.join(OBJECTIVES)}")
    _need(scenario.share_basis in ("gpus", "value"), "share_basis", "must be gpus or value")
    for name in ("min_providers", "max_providers", "min_regions"):
        value = getattr(scenario, name)
        _need(value is None or value >= 1, name, "must be at least 1")
    pcts = {"max_share_pct": scenario.max_share_pct}
    pcts |= {f"min_share_pct[{p}]": v for p, v in scenario.min_share_pct.items()}
    for name, pct in pcts.items():
        _need(pct is None or 0 < pct <= 100, name, "must be above 0 and at most 100")
    _need(scenario.budget is None or scenario.budget > 0, "budget", "must be positive")
    useful = scenario.required_useful_gpu_hours
    _need(useful is None or useful >= 0, "required_useful_gpu_hours", "must not be negative")
