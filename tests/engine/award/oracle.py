"""A brute-force reading of the award rules, independent of the solver: every allocation of a
small request enumerated, checked rule by rule in exact decimals, and the best one kept."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from itertools import product

from engine.award import Bundle, LotSpec, Offer, Scenario

Allocation = dict[str, int]


def _splits(lot: LotSpec, offers: Sequence[Offer]) -> Iterator[tuple[int, ...]]:
    if not lot.divisible:
        for index, offer in enumerate(offers):
            if offer.max_nodes >= lot.nodes:
                yield tuple(lot.nodes if i == index else 0 for i in range(len(offers)))
        return
    ranges = [
        [0, *range(lot.min_block_nodes, min(offer.max_nodes, lot.nodes) + 1)] for offer in offers
    ]
    for counts in product(*ranges):
        if sum(counts) == lot.nodes:
            yield counts


def allocations(lots: Sequence[LotSpec], offers: Sequence[Offer]) -> Iterator[Allocation]:
    per_lot = []
    for lot in lots:
        mine = [o for o in offers if o.lot == lot.key and lot.region in (None, o.region)]
        per_lot.append(
            [dict(zip((o.key for o in mine), split, strict=True)) for split in _splits(lot, mine)]
        )
    for parts in product(*per_lot):
        merged: Allocation = {}
        for part in parts:
            merged.update(part)
        yield merged


def totals(
    lots: Sequence[LotSpec], offers: Sequence[Offer], bundles: Sequence[Bundle], nodes: Allocation
) -> tuple[Decimal, Decimal, dict[str, Decimal], dict[str, int]]:
    """Cost, useful GPU-hours, each provider's value after its discounts, each provider's GPUs."""
    gpn = {lot.key: lot.gpus_per_node for lot in lots}
    value: dict[str, Decimal] = {}
    gpus: dict[str, int] = {}
    useful = Decimal(0)
    won: dict[str, set[str]] = {}
    by_lot: dict[tuple[str, str], Decimal] = {}
    for offer in offers:
        count = nodes.get(offer.key, 0)
        if not count:
            continue
        paid = Decimal(count * gpn[offer.lot] * offer.hours)
        line = offer.price_per_gpu_hour * paid
        value[offer.provider] = value.get(offer.provider, Decimal(0)) + line
        gpus[offer.provider] = gpus.get(offer.provider, 0) + count * gpn[offer.lot]
        useful += offer.useful_fraction * paid
        won.setdefault(offer.provider, set()).add(offer.lot)
        key = (offer.provider, offer.lot)
        by_lot[key] = by_lot.get(key, Decimal(0)) + line
    for bundle in bundles:
        if bundle.kind == "discount" and set(bundle.lots) <= won.get(bundle.provider, set()):
            off = (
                sum(by_lot[(bundle.provider, lot)] for lot in set(bundle.lots))
                * bundle.discount_pct
                / 100
            )
            value[bundle.provider] -= off
    return sum(value.values(), Decimal(0)), useful, value, gpus


def breaks(
    scenario: Scenario,
    lots: Sequence[LotSpec],
    offers: Sequence[Offer],
    bundles: Sequence[Bundle],
    nodes: Allocation,
) -> list[str]:
    """The rules this allocation breaks, by key."""
    cost, useful, value, gpus = totals(lots, offers, bundles, nodes)
    used = [o for o in offers if nodes.get(o.key, 0) > 0]
    providers = {o.provider for o in used}
    total_gpus = sum(lot.gpus for lot in lots)
    share = (
        (lambda p: Decimal(gpus.get(p, 0)) / total_gpus)
        if scenario.share_basis == "gpus"
        else (lambda p: value.get(p, Decimal(0)) / cost)
    )
    broken = []
    if scenario.min_providers is not None and len(providers) < scenario.min_providers:
        broken.append("min_providers")
    if scenario.max_providers is not None and len(providers) > scenario.max_providers:
        broken.append("max_providers")
    if scenario.max_share_pct is not None and any(
        share(p) * 100 > scenario.max_share_pct for p in providers
    ):
        broken.append("max_share")
    broken += [
        f"min_share:{p}" for p, pct in scenario.min_share_pct.items() if share(p) * 100 < pct
    ]
    if scenario.min_regions is not None and len({o.region for o in used}) < scenario.min_regions:
        broken.append("min_regions")
    if scenario.budget is not None and cost > scenario.budget:
        broken.append("budget")
    broken += [f"excluded:{p}" for p in scenario.excluded_providers if p in providers]
    for lot in lots:
        one_fabric = lot.fabric_domain_required or scenario.one_fabric_domain_per_lot
        if one_fabric and len({o.fabric_domain for o in used if o.lot == lot.key}) > 1:
            broken.append("fabric_domain")
    for index, bundle in enumerate(bundles, start=1):
        mine = {o.lot for o in used if o.provider == bundle.provider}
        if bundle.kind == "all_or_nothing" and 0 < len(mine & set(bundle.lots)) < len(
            set(bundle.lots)
        ):
            broken.append(f"bundle:{index}")
        if bundle.kind == "max_total":
            lots_in = set(bundle.lots or [lot.key for lot in lots])
            gpn = {lot.key: lot.gpus_per_node for lot in lots}
            if sum(
                nodes[o.key] * gpn[o.lot]
                for o in used
                if o.provider == bundle.provider and o.lot in lots_in
            ) > (bundle.max_gpus or 0):
                broken.append(f"bundle:{index}")
    required = scenario.required_useful_gpu_hours
    if (
        required is not None
        and scenario.objective == "min_cost_for_required_useful"
        and useful < required
    ):
        broken.append("required_useful")
    return broken


def best(
    scenario: Scenario,
    lots: Sequence[LotSpec],
    offers: Sequence[Offer],
    bundles: Sequence[Bundle],
    *,
    ignore: str | None = None,
) -> Decimal | None:
    """The best objective value over every allocation that breaks no rule but `ignore`
    (None: infeasible)."""
    values = []
    for nodes in allocations(lots, offers):
        if set(breaks(scenario, lots, offers, bundles, nodes)) - {ignore}:
            continue
        cost, useful, _, _ = totals(lots, offers, bundles, nodes)
        values.append(
            cost if scenario.objective == "min_cost_for_required_useful" else useful / cost
        )
    if not values:
        return None
    return min(values) if scenario.objective == "min_cost_for_required_useful" else max(values)
