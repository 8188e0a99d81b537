"""Usage lines against what the contract allows: each difference with its line and its rule.

All sums are integers (micro-dollars, micro-GPU-minutes, seconds); a line's allowed amount is
the agreed rate times the quantity, times the share of its period that lies inside the accepted
term and outside every outage of its node, rounded to the micro-dollar once per line. Totals are
rounded to the cent only when shown.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import NamedTuple

from engine.billing.lines import EGRESS, FEE, GPU, HOUR_MICRO, UsageLine
from engine.formatting import fixed

HOUR_UNITS = HOUR_MICRO  # micro-GPU-minutes in a GPU-hour
HALF_HOUR = HOUR_UNITS // 2
HALF_CENT = 5_000  # micro-dollars: an amount within half a cent of quantity × rate is right

BEFORE_CLOCK = "before-clock"
AFTER_TERM = "after-term"
NODE_OUT = "node-out"
RATE = "rate"
AMOUNT = "amount"
EGRESS_OVER = "egress-over-bid"
FEES_OVER = "fees-over-bid"
RULES = {
    BEFORE_CLOCK: "Billed before the clock started (accepted time only)",
    AFTER_TERM: "Billed after the term ended",
    NODE_OUT: "Node billed while it was out (incident)",
    RATE: "Rate is not the agreed rate",
    AMOUNT: "Amount is not quantity × rate",
    EGRESS_OVER: "Egress above the bid",
    FEES_OVER: "Fees above the bid",
}


@dataclass(frozen=True)
class Outage:
    """A node out of service over [start, end) (UTC seconds); node "" is the whole allocation."""

    node: str
    start: int
    end: int
    label: str  # e.g. "incident #12 (S1)"


@dataclass
class Contract:
    clock_start: int
    term_end: int
    rate: int  # micro-dollars per GPU-hour
    fees: int | None  # micro-dollars over the term; None: no fees were bid
    egress: int | None
    outages: list[Outage] = field(default_factory=list)
    credits: int = 0  # micro-dollars; SLA credits computed elsewhere and passed in


@dataclass(frozen=True, slots=True)
class Difference:
    line: int
    rule: str
    message: str
    billed: int  # micro-dollars
    allowed: int


NO_START, NO_END = 1 << 62, -(1 << 62)


@dataclass
class Result:
    lines: int = 0
    billed: dict[str, int] = field(default_factory=lambda: {GPU: 0, EGRESS: 0, FEE: 0})
    allowed: dict[str, int] = field(default_factory=lambda: {GPU: 0, EGRESS: 0, FEE: 0})
    gpu_hours: int = 0  # micro-GPU-minutes billed
    credits: int = 0
    # The GPU lines' span (epoch seconds): which months' SLA credits this bill answers for.
    first_start: int | None = None
    last_end: int | None = None
    by_rule: dict[str, int] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    listed_all: bool = True

    @property
    def billed_total(self) -> int:
        return sum(self.billed.values())

    @property
    def allowed_total(self) -> int:
        return sum(self.allowed.values())

    @property
    def net(self) -> int:
        """What the buyer owes: what the contract allows, less the credits due."""
        return self.allowed_total - self.credits


def money(micros: int) -> str:
    """Micro-dollars as dollars to the cent (half up), with thousands separators."""
    return fixed(Decimal(micros).scaleb(-6))


def rate_text(micros: int) -> str:
    """A rate with at least two decimals and as many more as it has (2.5004, not 2.50)."""
    whole, frac = divmod(abs(micros), 1_000_000)
    digits = f"{frac:06d}".rstrip("0").ljust(2, "0")
    return f"{'-' if micros < 0 else ''}{whole:,}.{digits}"


def _when(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


class _Outages:
    """Merged outage intervals per node (the whole allocation's added to every node's)."""

    def __init__(self, outages: list[Outage]) -> None:
        whole = [o for o in outages if not o.node]
        nodes = {o.node for o in outages if o.node}
        self.by_node = {n: self._merge([o for o in outages if o.node == n] + whole) for n in nodes}
        self.whole = self._merge(whole)
        # Per node, the first start and the last end of its outages: most lines miss them all.
        self.span = {n: (v[0][0], v[1][-1]) for n, v in self.by_node.items() if v[0]}
        self.whole_span = (self.whole[0][0], self.whole[1][-1]) if self.whole[0] else (0, 0)

    @staticmethod
    def _merge(rows: list[Outage]) -> tuple[list[int], list[int], list[str]]:
        starts: list[int] = []
        ends: list[int] = []
        labels: list[str] = []
        for o in sorted(rows, key=lambda o: o.start):
            if starts and o.start <= ends[-1]:
                ends[-1] = max(ends[-1], o.end)
                if o.label not in labels[-1]:
                    labels[-1] += f", {o.label}"
            else:
                starts.append(o.start)
                ends.append(o.end)
                labels.append(o.label)
        return starts, ends, labels

    def overlap(self, node: str, start: int, end: int) -> tuple[int, list[str]]:
        """Seconds of [start, end) during which `node` was out, and which outages."""
        starts, ends, labels = self.by_node.get(node, self.whole)
        if not starts:
            return 0, []
        i = max(bisect_right(starts, start) - 1, 0)
        total, hit = 0, []
        while i < len(starts) and starts[i] < end:
            seconds = min(end, ends[i]) - max(start, starts[i])
            if seconds > 0:
                total += seconds
                hit.append(labels[i])
            i += 1
        return total, hit


@dataclass(frozen=True, slots=True)
class _Terms:
    """The contract as every line's rules read it: the clock, the term, the rate, the caps."""

    clock: int
    term_end: int
    agreed: int  # micro-dollars per GPU-hour
    caps: dict[str, int | None]  # EGRESS and FEE over the term; None: none was bid
    outages: _Outages

    @classmethod
    def of(cls, contract: Contract) -> _Terms:
        return cls(
            clock=contract.clock_start,
            term_end=contract.term_end,
            agreed=contract.rate,
            caps={EGRESS: contract.egress, FEE: contract.fees},
            outages=_Outages(contract.outages),
        )


class _Priced(NamedTuple):
    """A GPU line against the terms, as every rule reads it (a tuple: cheap to build)."""

    usage: UsageLine
    rate: int  # billed, or the agreed rate when the line names none
    own: int  # quantity × billed rate
    amount: int  # billed, or `own` when the line names none
    allowed: int  # quantity × agreed rate × the share inside the term and outside outages
    out: int  # seconds of the line during which its node was out
    outages: Sequence[str]


_NONE: tuple[str, ...] = ()


def _price(u: UsageLine, terms: _Terms) -> tuple[int, int, _Priced | None]:
    """The line's billed and allowed amounts, and the line as the rules read it; None for the
    usual line, wholly inside the term and outside every outage, at the agreed rate and billed
    at quantity × rate, in which no rule can find a difference (most lines)."""
    agreed, clock, term_end = terms.agreed, terms.clock, terms.term_end
    rate = u.rate if u.rate is not None else agreed
    quantity, start, end = u.quantity, u.start, u.end
    own = (quantity * rate + HALF_HOUR) // HOUR_UNITS
    lo = start if start > clock else clock
    hi = end if end < term_end else term_end
    first, last = terms.outages.span.get(u.node, terms.outages.whole_span)
    labels: Sequence[str]
    if hi > lo and lo < last and hi > first:  # most lines miss every outage
        out, labels = terms.outages.overlap(u.node, lo, hi)
    else:
        out, labels = 0, _NONE
    span = end - start
    amount = u.amount if u.amount is not None else own
    if span > 0 and hi - lo == span and not out:  # wholly allowed
        ok = (quantity * agreed + HALF_HOUR) // HOUR_UNITS
        if rate == agreed and -HALF_CENT <= amount - own <= HALF_CENT:
            return amount, ok, None
        return amount, ok, _Priced(u, rate, own, amount, ok, out, labels)
    if span > 0:
        inside = hi - lo if hi > lo else 0
        ok = (quantity * agreed * (inside - out) + HOUR_UNITS * span // 2) // (HOUR_UNITS * span)
    else:
        ok = 0 if (start < clock or start >= term_end or out) else quantity * agreed // HOUR_UNITS
    return amount, ok, _Priced(u, rate, own, amount, ok, out, labels)


def _before_clock(terms: _Terms, p: _Priced) -> str | None:
    u = p.usage
    if u.start >= terms.clock:
        return None
    return (
        f"{u.node or 'usage'} from {_when(u.start)} is before the clock started at "
        f"{_when(terms.clock)}."
    )


def _after_term(terms: _Terms, p: _Priced) -> str | None:
    u = p.usage
    if u.end <= terms.term_end:
        return None
    return (
        f"{u.node or 'usage'} until {_when(u.end)} is after the term ended at "
        f"{_when(terms.term_end)}."
    )


def _node_out(terms: _Terms, p: _Priced) -> str | None:
    if not p.out:
        return None
    return (
        f"{p.usage.node} was out for {p.out / 3600:.2f} h of this line "
        f"({'; '.join(p.outages)}); the terms say nodes out of service are not billed."
    )


def _rate(terms: _Terms, p: _Priced) -> str | None:
    if p.rate == terms.agreed:
        return None
    return f"rate {rate_text(p.rate)} is not the agreed {rate_text(terms.agreed)} per GPU-hour."


def _amount(terms: _Terms, p: _Priced) -> str | None:
    if abs(p.amount - p.own) <= HALF_CENT:
        return None
    return (
        f"amount {money(p.amount)} is not {p.usage.quantity / HOUR_UNITS:,.4g} GPU-hours × "
        f"{rate_text(p.rate)} = {money(p.own)}."
    )


# What each GPU line is checked for, in the order its differences are listed.
LINE_RULES: tuple[tuple[str, Callable[[_Terms, _Priced], str | None]], ...] = (
    (BEFORE_CLOCK, _before_clock),
    (AFTER_TERM, _after_term),
    (NODE_OUT, _node_out),
    (RATE, _rate),
    (AMOUNT, _amount),
)
OVER_BID = {EGRESS: EGRESS_OVER, FEE: FEES_OVER}


class _Notes:
    """Counts every difference by rule and keeps the first `max_listed` of them."""

    def __init__(self, result: Result, max_listed: int | None) -> None:
        self.result, self.max_listed = result, max_listed

    def __call__(self, line: int, rule: str, message: str, billed: int, allowed: int) -> None:
        result = self.result
        result.by_rule[rule] = result.by_rule.get(rule, 0) + 1
        if self.max_listed is None or len(result.differences) < self.max_listed:
            result.differences.append(Difference(line, rule, message, billed, allowed))
        else:
            result.listed_all = False


def _bill_extra(u: UsageLine, terms: _Terms, result: Result, note: _Notes) -> None:
    """An egress or fee line: allowed up to what the bid said for the whole term."""
    amount, cap = u.amount or 0, terms.caps[u.kind]
    before = result.billed[u.kind]
    after = result.billed[u.kind] = before + amount
    limit = cap or 0
    allowed = max(min(after, limit) - min(before, limit), 0)
    result.allowed[u.kind] += allowed
    if after > limit >= before:  # said once, on the line that crosses the cap
        bid = "none was bid" if cap is None else f"the bid is {money(cap)} for the term"
        message = f"{u.kind} billed so far is {money(after)}; {bid}."
        note(u.line, OVER_BID[u.kind], message, amount, allowed)


def reconcile(
    lines: Iterable[UsageLine], contract: Contract, *, max_listed: int | None = None
) -> Result:
    """Check every line; `max_listed` caps the differences kept (all are still counted)."""
    result = Result(credits=contract.credits)
    terms, note = _Terms.of(contract), _Notes(result, max_listed)
    count = gpu_quantity = gpu_billed = gpu_allowed = 0  # locals: the loop runs once per line
    period_lo, period_hi = NO_START, NO_END
    for u in lines:
        count += 1
        if u.kind != GPU:
            _bill_extra(u, terms, result, note)
            continue
        amount, allowed, priced = _price(u, terms)
        gpu_quantity += u.quantity
        gpu_billed += amount
        gpu_allowed += allowed
        if u.start < period_lo:
            period_lo = u.start
        if u.end > period_hi:
            period_hi = u.end
        if priced is None:
            continue
        for rule, check in LINE_RULES:
            message = check(terms, priced)
            if message is not None:
                note(u.line, rule, message, amount, allowed)
    result.lines = count
    result.gpu_hours = gpu_quantity
    if period_hi != NO_END:
        result.first_start, result.last_end = period_lo, period_hi
    result.billed[GPU] += gpu_billed
    result.allowed[GPU] += gpu_allowed
    return result
