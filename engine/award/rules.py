"""The scenario's business rules, each as a `Rule` (key and label) and the rows it adds.

Keys are stable names a page or an API can show and compare across scenarios:
`min_providers`, `max_providers`, `max_share`, `min_share:<provider>`, `min_regions`,
`budget`, `excluded:<provider>`, `fabric_domain` (lots kept in one fabric domain each),
`bundle:<n>` (the n-th bundle, from 1: all-or-nothing and maximum-total conditions; a discount
is a price, not a rule) and `required_useful`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import partial

from engine.lots.model import LotSpec

from .formulation import Builder, Formulation, Rule
from .model import Bundle, Offer, Scenario


def _count_providers(form: Formulation, *, lower: float, upper: float) -> None:
    form.program.row(dict.fromkeys(form.provider_flags(), 1.0), lower, upper)


def _share(form: Formulation, provider: str, pct: Decimal, basis: str, *, at_most: bool) -> None:
    """The provider's GPUs (or value after discounts) ≤ / ≥ pct % of the award's."""
    share = float(pct) / 100
    if basis == "gpus":
        mine = form.gpu_terms(o for o in form.offers if o.provider == provider)
        total = share * sum(lot.gpus for lot in form.lots.values())
        bounds = (-float("inf"), total) if at_most else (total, float("inf"))
        form.program.row(mine, *bounds)
        return
    row = form.value_terms(provider)
    for column, coef in form.cost_terms().items():
        row[column] = row.get(column, 0.0) - share * coef
    form.program.row(row, *((-float("inf"), 0.0) if at_most else (0.0, float("inf"))))


def _max_share(form: Formulation, pct: Decimal, basis: str) -> None:
    for provider in dict.fromkeys(o.provider for o in form.offers):
        _share(form, provider, pct, basis, at_most=True)


def _regions(form: Formulation, count: int) -> None:
    by_region: dict[str, dict[int, float]] = defaultdict(dict)
    for offer in form.offers:
        by_region[offer.region][form.used[offer.key]] = -1.0
    flags = {}
    for members in by_region.values():
        flag = form.program.binary()
        form.program.row({flag: 1.0, **members}, upper=0.0)
        flags[flag] = 1.0
    form.program.row(flags, lower=float(count))


def _budget(form: Formulation, budget: Decimal) -> None:
    form.program.row(form.cost_terms(), upper=float(budget))


def _exclude(form: Formulation, provider: str) -> None:
    for offer in form.offers:
        if offer.provider == provider:
            form.program.fix(form.nodes[offer.key], 0.0)
            form.program.fix(form.used[offer.key], 0.0)


def _one_fabric(form: Formulation, lots: tuple[str, ...]) -> None:
    """Per lot, one binary per fabric domain its offers are in; at most one may be used.

    Indivisible lots need none of this: they go to one offer whole.
    """
    domains: dict[tuple[str, str], list[int]] = defaultdict(list)
    for offer in form.offers:
        if offer.lot in lots:
            domains[(offer.lot, offer.fabric_domain)].append(form.used[offer.key])
    chosen: dict[str, dict[int, float]] = defaultdict(dict)
    for (lot, _), members in domains.items():
        flag = form.program.binary()
        for member in members:
            form.program.row({member: 1.0, flag: -1.0}, upper=0.0)
        chosen[lot][flag] = 1.0
    for flags in chosen.values():
        form.program.row(flags, upper=1.0)


def _all_or_nothing(form: Formulation, bundle: Bundle) -> None:
    flags = [form.lot_of(bundle.provider, lot) for lot in dict.fromkeys(bundle.lots)]
    for flag in flags[1:]:
        form.program.row({flags[0]: 1.0, flag: -1.0}, 0.0, 0.0)


def _max_total(form: Formulation, bundle: Bundle) -> None:
    lots = set(bundle.lots or form.lots)
    mine = [o for o in form.offers if o.provider == bundle.provider and o.lot in lots]
    form.program.row(form.gpu_terms(mine), upper=float(bundle.max_gpus or 0))


def _required_useful(form: Formulation, hours: Decimal) -> None:
    form.program.row(form.useful_terms(), lower=float(hours))


def _pct(value: Decimal) -> str:
    return f"{value.normalize():f} %"


def scenario_rules(
    scenario: Scenario,
    lots: Mapping[str, LotSpec],
    offers: Sequence[Offer],
    bundles: Sequence[Bundle],
) -> list[tuple[Rule, Builder]]:
    """Every rule in force in this scenario, in a stable order, with the rows it adds."""
    out: list[tuple[Rule, Builder]] = []
    inf = float("inf")
    if scenario.min_providers is not None:
        rule = Rule("min_providers", f"at least {scenario.min_providers} providers")
        out.append((rule, partial(_count_providers, lower=scenario.min_providers, upper=inf)))
    if scenario.max_providers is not None:
        rule = Rule("max_providers", f"at most {scenario.max_providers} providers")
        out.append((rule, partial(_count_providers, lower=-inf, upper=scenario.max_providers)))
    basis = "GPUs" if scenario.share_basis == "gpus" else "value"
    if scenario.max_share_pct is not None:
        label = f"no provider over {_pct(scenario.max_share_pct)} of the {basis}"
        add = partial(_max_share, pct=scenario.max_share_pct, basis=scenario.share_basis)
        out.append((Rule("max_share", label), add))
    for provider, pct in sorted(scenario.min_share_pct.items()):
        label = f"{provider} at least {_pct(pct)} of the {basis}"
        add = partial(_share, provider=provider, pct=pct, basis=scenario.share_basis, at_most=False)
        out.append((Rule(f"min_share:{provider}", label), add))
    if scenario.min_regions is not None:
        rule = Rule("min_regions", f"at least {scenario.min_regions} regions")
        out.append((rule, partial(_regions, count=scenario.min_regions)))
    if scenario.budget is not None:
        rule = Rule("budget", f"budget ${scenario.budget:,.2f}")
        out.append((rule, partial(_budget, budget=scenario.budget)))
    for provider in sorted(scenario.excluded_providers):
        out.append(
            (
                Rule(f"excluded:{provider}", f"{provider} excluded"),
                partial(_exclude, provider=provider),
            )
        )
    out.extend(_lot_and_bundle_rules(scenario, lots, bundles))
    useful = scenario.required_useful_gpu_hours
    if useful is not None and scenario.objective == "min_cost_for_required_useful":
        rule = Rule("required_useful", f"at least {useful:,} useful GPU-hours")
        out.append((rule, partial(_required_useful, hours=useful)))
    return out


def _lot_and_bundle_rules(
    scenario: Scenario, lots: Mapping[str, LotSpec], bundles: Sequence[Bundle]
) -> list[tuple[Rule, Builder]]:
    out: list[tuple[Rule, Builder]] = []
    fabric = [
        key
        for key, lot in lots.items()
        if lot.divisible and (lot.fabric_domain_required or scenario.one_fabric_domain_per_lot)
    ]
    if fabric:
        label = (
            "every lot in one fabric domain"
            if scenario.one_fabric_domain_per_lot
            else f"lot{'s' if len(fabric) > 1 else ''} {', '.join(fabric)} in one fabric domain"
        )
        out.append((Rule("fabric_domain", label), partial(_one_fabric, lots=tuple(fabric))))
    for index, bundle in enumerate(bundles, start=1):
        if bundle.kind == "all_or_nothing":
            out.append(
                (Rule(f"bundle:{index}", bundle.label), partial(_all_or_nothing, bundle=bundle))
            )
        elif bundle.kind == "max_total":
            out.append((Rule(f"bundle:{index}", bundle.label), partial(_max_total, bundle=bundle)))
    return out
