"""The award as a mixed-integer program: variables, lot coverage, bundles and the rules.

Per eligible offer o on lot l (l has N nodes of g GPUs): an integer n_o (nodes awarded,
0 ≤ n_o ≤ min(max_nodes, N)) and a binary y_o (awarded anything). Divisible lot:
B·y_o ≤ n_o ≤ max·y_o with B its minimum block; indivisible: n_o = N·y_o. Every lot is
covered exactly: Σ n_o = N. Cost = Σ c_o·n_o − Σ discounts, with c_o = price × g × hours;
useful GPU-hours = Σ u_o·n_o, with u_o = useful_fraction × g × hours.

Each business rule is a `Rule`: a key, a label, and rows added only while it is in force, so
the same inputs can be built again without any one rule (its cost, or a relaxation).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.lots.model import LotSpec

from .mip import Program
from .model import Bundle, Offer


@dataclass(frozen=True)
class Rule:
    key: str
    label: str


@dataclass
class Formulation:
    """A built program and where its pieces are, for objectives and for reading answers."""

    program: Program
    offers: Sequence[Offer]
    lots: Mapping[str, LotSpec]
    nodes: dict[str, int] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    provider_used: dict[str, int] = field(default_factory=dict)
    on_lot: dict[tuple[str, str], int] = field(default_factory=dict)
    discounts: list[tuple[str, int]] = field(default_factory=list)

    def node_cost(self, offer: Offer) -> float:
        lot = self.lots[offer.lot]
        return float(offer.price_per_gpu_hour * lot.gpus_per_node * offer.hours)

    def node_useful(self, offer: Offer) -> float:
        lot = self.lots[offer.lot]
        return float(offer.useful_fraction * lot.gpus_per_node * offer.hours)

    def cost_terms(self) -> dict[int, float]:
        terms = {self.nodes[o.key]: self.node_cost(o) for o in self.offers}
        terms.update({column: -1.0 for _, column in self.discounts})
        return terms

    def useful_terms(self) -> dict[int, float]:
        return {self.nodes[o.key]: self.node_useful(o) for o in self.offers}

    def value_terms(self, provider: str) -> dict[int, float]:
        terms = {
            self.nodes[o.key]: self.node_cost(o) for o in self.offers if o.provider == provider
        }
        terms.update({column: -1.0 for p, column in self.discounts if p == provider})
        return terms

    def gpu_terms(self, offers: Iterable[Offer]) -> dict[int, float]:
        return {self.nodes[o.key]: float(self.lots[o.lot].gpus_per_node) for o in offers}

    def lot_of(self, provider: str, lot: str) -> int:
        """The binary "provider wins some of lot" (built on first use, for bundles); fixed at 0
        where the provider did not bid on the lot."""
        if (provider, lot) not in self.on_lot:
            members = [
                self.used[o.key] for o in self.offers if o.provider == provider and o.lot == lot
            ]
            if len(members) == 1:
                self.on_lot[(provider, lot)] = members[0]
            else:
                column = self.program.binary()
                _link_any(self.program, column, members)
                self.on_lot[(provider, lot)] = column
        return self.on_lot[(provider, lot)]

    def provider_flags(self) -> list[int]:
        """One binary per provider, 1 exactly when it wins anything (built on first use)."""
        if not self.provider_used:
            by_provider: dict[str, list[int]] = defaultdict(list)
            for offer in self.offers:
                by_provider[offer.provider].append(self.used[offer.key])
            for provider, members in by_provider.items():
                self.provider_used[provider] = flag = self.program.binary()
                _link_any(self.program, flag, members)
        return list(self.provider_used.values())


Builder = Callable[[Formulation], None]


def ineligible_offers(lots: Mapping[str, LotSpec], offers: Sequence[Offer]) -> dict[str, str]:
    """Offers that can take no part in any award, each with the reason."""
    reasons = {}
    for offer in offers:
        lot = lots[offer.lot]
        if lot.region is not None and offer.region != lot.region:
            reasons[offer.key] = (
                f"in {offer.region}; lot {lot.key} is to be delivered in {lot.region}"
            )
        elif not lot.divisible and offer.max_nodes < lot.nodes:
            reasons[offer.key] = (
                f"offers {offer.max_nodes} nodes; lot {lot.key} is indivisible ({lot.nodes} nodes)"
            )
        elif offer.max_nodes < lot.min_block_nodes or offer.max_nodes == 0:
            reasons[offer.key] = (
                f"offers {offer.max_nodes} nodes; lot {lot.key}'s minimum block is "
                f"{lot.min_block_nodes}"
            )
    return reasons


def build(
    lots: Mapping[str, LotSpec],
    offers: Sequence[Offer],
    bundles: Sequence[Bundle],
    rules: Sequence[tuple[Rule, Builder]],
    *,
    drop: frozenset[str] = frozenset(),
) -> Formulation:
    """The program for these eligible offers with every rule in `rules` except those in `drop`.

    Discount bundles are prices, not rules: they are always in.
    """
    form = Formulation(Program(), offers, lots)
    _offer_columns(form)
    _coverage(form)
    for bundle in bundles:
        if bundle.kind == "discount":
            _discount(form, bundle)
    for rule, add in rules:
        if rule.key not in drop:
            add(form)
    return form


def _offer_columns(form: Formulation) -> None:
    program = form.program
    for offer in form.offers:
        lot = form.lots[offer.lot]
        top = min(offer.max_nodes, lot.nodes)
        nodes = program.var(0.0, float(top), integer=True)
        used = program.binary()
        form.nodes[offer.key] = nodes
        form.used[offer.key] = used
        if lot.divisible:
            program.row({nodes: 1.0, used: -float(top)}, upper=0.0)
            program.row({nodes: 1.0, used: -float(lot.min_block_nodes)}, lower=0.0)
        else:
            program.row({nodes: 1.0, used: -float(lot.nodes)}, 0.0, 0.0)


def _coverage(form: Formulation) -> None:
    by_lot: dict[str, dict[int, float]] = {key: {} for key in form.lots}
    for offer in form.offers:
        by_lot[offer.lot][form.nodes[offer.key]] = 1.0
    for key, terms in by_lot.items():
        nodes = float(form.lots[key].nodes)
        form.program.row(terms, nodes, nodes)


def _link_any(program: Program, flag: int, members: Iterable[int]) -> None:
    """flag = 1 exactly when at least one of the binaries `members` is 1 (0 when none)."""
    members = list(members)
    if not members:
        program.fix(flag, 0.0)
        return
    for member in members:
        program.row({member: 1.0, flag: -1.0}, upper=0.0)
    program.row({flag: 1.0, **dict.fromkeys(members, -1.0)}, upper=0.0)


def _discount(form: Formulation, bundle: Bundle) -> None:
    """D = pct × the provider's value on the bundle's lots when it wins some of every one, else 0.

    Pinned from both sides (not just capped), so no rule can be met by forgoing a discount.
    """
    program = form.program
    lots = list(dict.fromkeys(bundle.lots))  # ordered, so the program is the same every run
    mine = [o for o in form.offers if o.provider == bundle.provider and o.lot in lots]
    if {o.lot for o in mine} != set(lots):
        return
    rate = float(bundle.discount_pct) / 100
    value = {form.nodes[o.key]: -rate * form.node_cost(o) for o in mine}
    big = rate * sum(form.node_cost(o) * program.upper[form.nodes[o.key]] for o in mine)
    together = program.binary()
    amount = program.var(0.0, big, integer=False)
    flags = [form.lot_of(bundle.provider, lot) for lot in lots]
    for flag in flags:
        program.row({together: 1.0, flag: -1.0}, upper=0.0)
    program.row({**dict.fromkeys(flags, 1.0), together: -1.0}, upper=float(len(flags) - 1))
    program.row({amount: 1.0, **value}, upper=0.0)
    program.row({amount: 1.0, together: -big}, upper=0.0)
    program.row({amount: 1.0, **value, together: -big}, lower=-big)
    form.discounts.append((bundle.provider, amount))
