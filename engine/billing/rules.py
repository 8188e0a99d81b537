"""What a usage line may be charged, and every rule it is checked against, each a function.

A GPU line's allowed amount is the agreed rate times the GPU-hours it could possibly have used:
its quantity, but no more than its period × its GPUs, on no more GPUs than its node has, on a node
of the allocation, over the share of its period inside the accepted term and outside every
outage of its node, and over node-time no earlier line already billed. So however a bill is
made up, what it is allowed never exceeds the allocation's GPUs × the accepted hours × the
agreed rate. Egress and fees are allowed up to what the bid said for the term.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import NamedTuple

from engine.billing.claims import Timeline
from engine.billing.lines import EGRESS, FEE, HOUR_MICRO, MICRO, UsageLine
from engine.billing.terms import Terms
from engine.formatting import fixed

HOUR_UNITS = HOUR_MICRO  # micro-GPU-minutes in a GPU-hour
HALF_HOUR = HOUR_UNITS // 2
HALF_CENT = 5_000  # micro-dollars: an amount within half a cent of quantity × rate is right
MINUTE_UNITS = MICRO  # micro-GPU-minutes in a GPU-minute

UNKNOWN_NODE = "unknown-node"
PERIOD_ORDER = "period-order"
BEFORE_CLOCK = "before-clock"
AFTER_TERM = "after-term"
NODE_OUT = "node-out"
TOO_MANY_GPUS = "too-many-gpus"
OVER_PERIOD = "over-period"
DOUBLE_BILLED = "double-billed"
RATE = "rate"
AMOUNT = "amount"
CURRENCY = "currency"
NEGATIVE = "negative"
EGRESS_OVER = "egress-over-bid"
FEES_OVER = "fees-over-bid"
EGRESS_NOT_BID = "egress-not-bid"
FEES_NOT_BID = "fees-not-bid"
RULES = {
    UNKNOWN_NODE: "Node is not one of the contract's nodes",
    PERIOD_ORDER: "Period ends before it starts",
    BEFORE_CLOCK: "Billed before the clock started (accepted time only)",
    AFTER_TERM: "Billed after the term ended",
    NODE_OUT: "Node billed while it was out (incident)",
    TOO_MANY_GPUS: "More GPUs than the node or the allocation has",
    OVER_PERIOD: "More GPU-hours than the period's length × its GPUs",
    DOUBLE_BILLED: "The same node-time is billed twice (overlapping or repeated line)",
    RATE: "Rate is not the agreed rate",
    AMOUNT: "Amount is not quantity × rate",
    CURRENCY: "Currency is not the contract's",
    NEGATIVE: "Negative quantity, rate or amount",
    EGRESS_OVER: "Egress above the bid",
    FEES_OVER: "Fees above the bid",
    EGRESS_NOT_BID: "Egress billed although the bid declared none",
    FEES_NOT_BID: "Fees billed although the bid declared none",
}
OVER_BID = {EGRESS: EGRESS_OVER, FEE: FEES_OVER}
NOT_BID = {EGRESS: EGRESS_NOT_BID, FEE: FEES_NOT_BID}


def money(micros: int) -> str:
    """Micro-dollars as dollars to the cent (half up), with thousands separators."""
    return fixed(Decimal(micros).scaleb(-6))


def rate_text(micros: int) -> str:
    """A rate with at least two decimals and as many more as it has (2.5004, not 2.50)."""
    whole, frac = divmod(abs(micros), 1_000_000)
    digits = f"{frac:06d}".rstrip("0").ljust(2, "0")
    return f"{'-' if micros < 0 else ''}{whole:,}.{digits}"


def _when(seconds: int) -> str:
    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return f"{seconds} s after 1970"  # a time no calendar holds is still named


def _hours(seconds: int) -> str:
    return f"{seconds / 3600:,.4g} h"


class Priced(NamedTuple):
    """A GPU line against the terms, as every rule reads it (a tuple: cheap to build)."""

    usage: UsageLine
    rate: int  # billed, or the agreed rate when the line names none
    own: int  # quantity × billed rate
    amount: int  # billed, or `own` when the line names none
    allowed: int  # see the module's docstring
    out: int  # seconds of the line during which its node was out
    outages: Sequence[str]
    node: str | None  # the allocation's node the line bills; None: not one of them
    wanted: int  # GPU-seconds of accepted time the line claims, on at most a node's GPUs
    granted: int  # of those, the GPU-seconds no earlier line had claimed
    blocker: int  # the first earlier line that claimed the same node-time (0: none)


_NONE: tuple[str, ...] = ()
Claims = dict[str, Timeline]


Pricer = Callable[[UsageLine], tuple[int, int, Priced | None]]
_ANY_GPUS = 1 << 62  # the node size when the contract does not say: no line is above it


def pricer(*, terms: Terms, claims: Claims) -> Pricer:
    """`price(line)`: the line's billed and allowed amounts, and the line as the rules read it;
    None for the usual line (a node of the allocation, wholly inside the term, outside every
    outage and after the node's claimed time, possible for its period and GPUs, at the agreed
    rate and billed at quantity × rate), in which no rule can find a difference (most lines).
    The terms are bound to locals once: this runs once per line, a million times a year."""
    agreed, clock, term_end = terms.agreed, terms.clock, terms.term_end
    per_node = terms.node_gpus or _ANY_GPUS
    memo, resolve = terms.nodes.memo, terms.nodes.resolve
    spans, whole_span, overlap = terms.outages.span, terms.outages.whole_span, terms.outages.overlap

    def price(u: UsageLine) -> tuple[int, int, Priced | None]:
        start, end, gpus, quantity = u.start, u.end, u.gpus, u.quantity
        rate = u.rate if u.rate is not None else agreed
        own = (quantity * rate + HALF_HOUR) // HOUR_UNITS
        amount = u.amount if u.amount is not None else own
        name = u.node
        try:
            node = memo[name]
        except KeyError:
            node = resolve(name)
        first, last = spans.get(name, whole_span)
        if (
            node is not None
            and clock <= start < end <= term_end
            and rate == agreed
            and -HALF_CENT <= amount - own <= HALF_CENT
            and quantity >= 0
            and amount >= 0
            and 0 < gpus <= per_node
            and quantity * 60 <= (end - start) * gpus * MINUTE_UNITS
            and not u.currency
            and (end <= first or start >= last or not overlap(name, start, end)[0])
        ):
            timeline = claims.get(node)
            if timeline is None:
                timeline = claims[node] = Timeline()
            if timeline.after(start, end, gpus, u.line):
                return amount, (quantity * agreed + HALF_HOUR) // HOUR_UNITS, None
        priced = _assess(u, terms, claims, node, (rate, own, amount))
        return amount, priced.allowed, priced

    return price


def _assess(
    u: UsageLine, terms: Terms, claims: Claims, node: str | None, billed: tuple[int, int, int]
) -> Priced:
    """A line off the usual path, priced by the module's rule: no rule's finding is allowed."""
    rate, own, amount = billed
    start, end, quantity = u.start, u.end, u.quantity
    span = end - start
    lo, hi = max(start, terms.clock), min(end, terms.term_end)
    labels: Sequence[str] = _NONE
    out = 0
    if hi > lo:
        out, labels = terms.outages.overlap(u.node, lo, hi)
    fits = min(u.gpus, terms.node_gpus) if terms.node_gpus else u.gpus
    refused = (
        node is None
        or span <= 0
        or fits <= 0
        or quantity < 0
        or amount < 0
        or rate < 0
        or terms.foreign(u.currency)
    )
    wanted = granted = blocker = allowed = 0
    if node is not None and not refused and hi > lo:
        wanted = fits * (hi - lo)
        timeline = claims.get(node)
        if timeline is None:
            timeline = claims[node] = Timeline()
        granted, blocker = timeline.claim(lo, hi, fits, terms.node_gpus or fits, u.line)
    if granted:
        usable = min(quantity, span * fits * MINUTE_UNITS // 60)
        share = HOUR_UNITS * span * wanted
        allowed = (usable * terms.agreed * (hi - lo - out) * granted + share // 2) // share
    return Priced(u, rate, own, amount, allowed, out, labels, node, wanted, granted, blocker)


def _unknown_node(terms: Terms, p: Priced) -> str | None:
    if p.node is not None:
        return None
    named = f"node {p.usage.node}" if p.usage.node else "a line naming no node"
    return f"{named} is not a node of this allocation: {terms.nodes.described()}."


def _period_order(terms: Terms, p: Priced) -> str | None:
    u = p.usage
    if u.end >= u.start:
        return None
    return f"the period ends at {_when(u.end)}, before it starts at {_when(u.start)}."


def _before_clock(terms: Terms, p: Priced) -> str | None:
    u = p.usage
    if u.start >= terms.clock:
        return None
    return (
        f"{u.node or 'usage'} from {_when(u.start)} is before the clock started at "
        f"{_when(terms.clock)}."
    )


def _after_term(terms: Terms, p: Priced) -> str | None:
    u = p.usage
    if u.end <= terms.term_end:
        return None
    return (
        f"{u.node or 'usage'} until {_when(u.end)} is after the term ended at "
        f"{_when(terms.term_end)}."
    )


def _node_out(terms: Terms, p: Priced) -> str | None:
    if not p.out:
        return None
    return (
        f"{p.usage.node} was out for {p.out / 3600:.2f} h of this line "
        f"({'; '.join(p.outages)}); the terms say nodes out of service are not billed."
    )


def _too_many_gpus(terms: Terms, p: Priced) -> str | None:
    gpus, per_node, whole = p.usage.gpus, terms.node_gpus, terms.allocation_gpus
    if per_node is not None and gpus > per_node:
        whole_text = f", the allocation {whole:,}" if whole else ""
        return f"{gpus:,} GPUs on one node; a node has {per_node:,}{whole_text}."
    if gpus <= 0:
        return f"{gpus:,} GPUs: a usage line bills at least one."
    return None


def _over_period(terms: Terms, p: Priced) -> str | None:
    u = p.usage
    span = u.end - u.start
    if span < 0 or u.quantity * 60 <= span * max(u.gpus, 0) * MINUTE_UNITS:
        return None  # a backward period is its own finding
    most = span * max(u.gpus, 0) / 3600
    return (
        f"{u.quantity / HOUR_UNITS:,.4g} GPU-hours in a period of {_hours(span)} on "
        f"{u.gpus:,} GPUs, which holds at most {most:,.4g} GPU-hours."
    )


def _double_billed(terms: Terms, p: Priced) -> str | None:
    if not p.blocker or p.granted >= p.wanted:
        return None
    return (
        f"{p.node} is already billed for this time from line {p.blocker}: "
        f"{(p.wanted - p.granted) / 3600:,.4g} GPU-hours of this line are billed twice."
    )


def _rate(terms: Terms, p: Priced) -> str | None:
    if p.rate == terms.agreed:
        return None
    cover = p.usage.cover
    if cover is not None:
        return (
            f"covered by {cover.what} and billed at {rate_text(p.rate)} per GPU-hour, which is "
            f"not what the hour cost: the file states no effective cost for it, so it cannot be "
            f"compared with the agreed {rate_text(terms.agreed)}. {cover.hint}"
        )
    return f"rate {rate_text(p.rate)} is not the agreed {rate_text(terms.agreed)} per GPU-hour."


def _amount(terms: Terms, p: Priced) -> str | None:
    if abs(p.amount - p.own) <= HALF_CENT:
        return None
    return (
        f"amount {money(p.amount)} is not {p.usage.quantity / HOUR_UNITS:,.4g} GPU-hours × "
        f"{rate_text(p.rate)} = {money(p.own)}."
    )


def _currency(terms: Terms, p: Priced) -> str | None:
    return currency_text(terms=terms, line=p.usage)


def currency_text(*, terms: Terms, line: UsageLine) -> str | None:
    """The finding for a line in another currency than the contract's; None: it is not."""
    if not terms.foreign(line.currency):
        return None
    return f"billed in {line.currency.strip()}; the contract is in {terms.currency}."


def _negative(terms: Terms, p: Priced) -> str | None:
    u = p.usage
    signs = [("quantity", u.quantity), ("rate", p.rate), ("amount", p.amount)]
    negative = [name for name, value in signs if value < 0]
    if not negative:
        return None
    return f"negative {' and '.join(negative)}: a usage line charges for use, it cannot credit."


Rule = Callable[[Terms, Priced], str | None]
# What each GPU line off the usual path is checked for, in the order its differences are listed.
LINE_RULES: tuple[tuple[str, Rule], ...] = (
    (UNKNOWN_NODE, _unknown_node),
    (PERIOD_ORDER, _period_order),
    (BEFORE_CLOCK, _before_clock),
    (AFTER_TERM, _after_term),
    (NODE_OUT, _node_out),
    (TOO_MANY_GPUS, _too_many_gpus),
    (OVER_PERIOD, _over_period),
    (DOUBLE_BILLED, _double_billed),
    (RATE, _rate),
    (AMOUNT, _amount),
    (CURRENCY, _currency),
    (NEGATIVE, _negative),
)
