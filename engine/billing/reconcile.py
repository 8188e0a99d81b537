"""Usage lines against what the contract allows: each difference with its line and its rule.

All sums are integers (micro-dollars, micro-GPU-minutes, seconds); a line's allowed amount is
the agreed rate times the quantity, times the share of its period that lies inside the accepted
term and outside every outage of its node, rounded to the micro-dollar once per line. Totals are
rounded to the cent only when shown.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from engine.billing.lines import EGRESS, FEE, GPU, MICRO, UsageLine

HOUR_UNITS = 60 * MICRO  # micro-GPU-minutes in a GPU-hour
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
    cents = (abs(micros) + 5_000) // 10_000
    sign = "-" if micros < 0 and cents else ""
    return f"{sign}{cents // 100:,}.{cents % 100:02d}"


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


def reconcile(
    lines: Iterable[UsageLine], contract: Contract, *, max_listed: int | None = None
) -> Result:
    """Check every line; `max_listed` caps the differences kept (all are still counted)."""
    result = Result(credits=contract.credits)
    outages = _Outages(contract.outages)
    caps = {EGRESS: contract.egress, FEE: contract.fees}
    over_rule = {EGRESS: EGRESS_OVER, FEE: FEES_OVER}
    agreed, clock, term_end = contract.rate, contract.clock_start, contract.term_end
    span_of, whole_span = outages.span.get, outages.whole_span
    billed, allowed, by_rule, listed = (
        result.billed,
        result.allowed,
        result.by_rule,
        result.differences,
    )

    def note(line: int, rule: str, message: str, billed_: int, allowed_: int) -> None:
        by_rule[rule] = by_rule.get(rule, 0) + 1
        if max_listed is None or len(listed) < max_listed:
            listed.append(Difference(line, rule, message, billed_, allowed_))
        else:
            result.listed_all = False

    count = gpu_quantity = gpu_billed = gpu_allowed = 0  # locals: the loop runs once per line
    period_lo, period_hi = NO_START, NO_END
    for u in lines:
        count += 1
        if u.kind != GPU:
            amount = u.amount or 0
            cap = caps[u.kind]
            before = billed[u.kind]
            billed[u.kind] = before + amount
            limit = cap or 0
            allowed_now = max(min(billed[u.kind], limit) - min(before, limit), 0)
            allowed[u.kind] += allowed_now
            if billed[u.kind] > limit >= before:
                bid = "none was bid" if cap is None else f"the bid is {money(cap)} for the term"
                note(
                    u.line,
                    over_rule[u.kind],
                    f"{u.kind} billed so far is {money(billed[u.kind])}; {bid}.",
                    amount,
                    allowed_now,
                )
            continue
        rate = u.rate if u.rate is not None else agreed
        quantity = u.quantity
        own = (quantity * rate + HALF_HOUR) // HOUR_UNITS
        amount = u.amount if u.amount is not None else own
        gpu_quantity += quantity
        gpu_billed += amount
        start, end = u.start, u.end
        if start < period_lo:
            period_lo = start
        if end > period_hi:
            period_hi = end
        lo = start if start > clock else clock
        hi = end if end < term_end else term_end
        inside = hi - lo if hi > lo else 0
        first, last = span_of(u.node, whole_span)
        if inside and lo < last and hi > first:
            out, labels = outages.overlap(u.node, lo, hi)
        else:
            out, labels = 0, []
        span = end - start
        if span > 0 and inside == span and not out:  # the usual line: wholly allowed
            ok = (quantity * agreed + HALF_HOUR) // HOUR_UNITS
        elif span > 0:
            ok = (quantity * agreed * (inside - out) + HOUR_UNITS * span // 2) // (
                HOUR_UNITS * span
            )
        else:
            ok = (
                0
                if (start < clock or start >= term_end or out)
                else quantity * agreed // HOUR_UNITS
            )
        gpu_allowed += ok
        if start < clock:
            note(
                u.line,
                BEFORE_CLOCK,
                f"{u.node or 'usage'} from {_when(start)} is before the clock started at "
                f"{_when(clock)}.",
                amount,
                ok,
            )
        if end > term_end:
            note(
                u.line,
                AFTER_TERM,
                f"{u.node or 'usage'} until {_when(end)} is after the term ended at "
                f"{_when(term_end)}.",
                amount,
                ok,
            )
        if out:
            note(
                u.line,
                NODE_OUT,
                f"{u.node} was out for {out / 3600:.2f} h of this line ({'; '.join(labels)}); "
                "the terms say nodes out of service are not billed.",
                amount,
                ok,
            )
        if rate != agreed:
            note(
                u.line,
                RATE,
                f"rate {rate_text(rate)} is not the agreed {rate_text(agreed)} per GPU-hour.",
                amount,
                ok,
            )
        if abs(amount - own) > HALF_CENT:
            note(
                u.line,
                AMOUNT,
                f"amount {money(amount)} is not {u.quantity / HOUR_UNITS:,.4g} GPU-hours × "
                f"{rate_text(rate)} = {money(own)}.",
                amount,
                ok,
            )
    result.lines = count
    result.gpu_hours = gpu_quantity
    if period_hi != NO_END:
        result.first_start, result.last_end = period_lo, period_hi
    billed[GPU] += gpu_billed
    allowed[GPU] += gpu_allowed
    return result
