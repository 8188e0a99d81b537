"""Availability, SLA credits and the realised cost per useful GPU-hour of one reservation.

Pure Python (no Django): plain dataclasses in, dataclasses out, money as Decimal. The rules and
a worked example are in docs/availability.md. Every figure carries its formula with the numbers
filled in, so a page can show how it was reached.

- The term is cut into calendar months (UTC). Each month's scheduled node-hours are the accepted
  hours times the contracted nodes; agreed maintenance is taken out of both the scheduled and
  the down time; an incident of a downtime severity takes its nodes down from its opening to its
  restore (an open one to `now`), clipped to the term. An incident naming no node, or of a
  severity the terms scope to the whole allocation (S1 by default: the job is down across the
  cluster), takes down the whole allocation.
- Availability = 1 − down ÷ (scheduled − maintenance). The lowest tier it falls below gives the
  tier credit; each clock breach of an incident opened in the month adds the breach credit; the
  sum is capped by the terms' cap and never exceeds 100 % of the month's fees.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from itertools import pairwise

from engine.delivery.model import (
    HOUR,
    HUNDRED,
    UNAGREED_MAINTENANCE,
    AvailabilityInputError,
    CreditTerms,
    Figure,
    Inputs,
    Month,
    NodeRow,
    Outage,
    Report,
    Tier,
    Window,
)
from engine.delivery.totals import cost_per_useful_gpu_hour, credit_cap, term_totals
from engine.formatting import cents, fixed, percent, usd


def _utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise AvailabilityInputError(f"{value!r} has no time zone; give UTC instants")
    return value.astimezone(UTC)


def _hours(seconds: float) -> Decimal:
    return Decimal(str(round(seconds, 3))) / HOUR


def month_bounds(start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    """Calendar months (UTC) covering [start, end), each clipped to it."""
    out: list[tuple[datetime, datetime]] = []
    cursor = start
    while cursor < end:
        year, month = cursor.year + (cursor.month == 12), cursor.month % 12 + 1
        nxt = datetime(year, month, 1, tzinfo=UTC)
        out.append((cursor, min(nxt, end)))
        cursor = nxt
    return out


def _segments_in(
    start: datetime, end: datetime, spans: Iterable[tuple[datetime, datetime]]
) -> list[tuple[datetime, datetime]]:
    """[start, end) cut at every span boundary inside it."""
    points = {start, end}
    for a, b in spans:
        points.update(p for p in (a, b) if start < p < end)
    ordered = sorted(points)
    return list(pairwise(ordered))


# A span of downtime: [start, end), its nodes (empty: the whole allocation) and the share of
# each node-hour it counts (1, or the agreed fraction for a degraded S2).
_Down = tuple[datetime, datetime, tuple[str, ...], Decimal]
_Span = tuple[datetime, datetime, tuple[str, ...]]


def _active(spans: Sequence[_Span], at: datetime) -> list:
    return [nodes for a, b, nodes in spans if a <= at < b]


def _weights(down: Sequence[_Down], at: datetime, lanes: tuple[str, ...]) -> dict[str, Decimal]:
    """Each node down at `at`, with the largest share any of its spans counts."""
    out: dict[str, Decimal] = {}
    for a, b, nodes, weight in down:
        if a <= at < b:
            for node in nodes or lanes:
                out[node] = max(out.get(node, Decimal(0)), weight)
    return out


@dataclass
class _Tally:
    maintenance: Decimal = Decimal(0)
    down: Decimal = Decimal(0)
    per_node_maint: dict[str, Decimal] = field(default_factory=dict)
    per_node_down: dict[str, Decimal] = field(default_factory=dict)


def _tally(
    start: datetime,
    end: datetime,
    *,
    lanes: tuple[str, ...],
    capacity: int,
    down: Sequence[_Down],
    maint: Sequence[_Span],
) -> _Tally:
    """Node-hours in maintenance and down over [start, end), per allocation and per lane. At
    any instant the allocation counts at most `capacity` nodes (the most-down ones), a node in
    maintenance is not down, and a node down at a share (a degraded S2) counts that share."""
    tally = _Tally(
        per_node_maint=dict.fromkeys(lanes, Decimal(0)),
        per_node_down=dict.fromkeys(lanes, Decimal(0)),
    )
    spans = [(a, b) for a, b, *_ in down] + [(a, b) for a, b, _ in maint]
    for a, b in _segments_in(start, end, spans):
        hours = _hours((b - a).total_seconds())
        in_maint: set[str] = set()
        for nodes in _active(maint, a):
            in_maint.update(nodes or lanes)
        out = {n: w for n, w in _weights(down, a, lanes).items() if n not in in_maint}
        m = min(capacity, len(in_maint))
        d = sum(sorted(out.values(), reverse=True)[: capacity - m], Decimal(0))
        tally.maintenance += hours * m
        tally.down += hours * d
        for node in in_maint:
            tally.per_node_maint[node] += hours
        for node, weight in out.items():
            tally.per_node_down[node] += hours * weight
    return tally


def tier_for(availability_pct: Decimal, tiers: Iterable[Tier]) -> Tier | None:
    """The lowest tier the availability falls strictly below (the biggest credit), or None."""
    reached = [t for t in tiers if availability_pct < t.below_pct]
    return min(reached, key=lambda t: t.below_pct) if reached else None


def _lanes(inputs: Inputs) -> tuple[tuple[str, ...], list[str]]:
    """The lanes given, plus any node an incident or window names that is not among them."""
    lanes = list(inputs.nodes)
    extra: list[str] = []
    named = [o.nodes for o in inputs.outages] + [w.nodes for w in inputs.maintenance]
    for nodes in named:
        for node in nodes:
            if node not in lanes and node not in extra:
                extra.append(node)
    return tuple(lanes + extra), extra


def _clip(
    start: datetime, end: datetime, lo: datetime, hi: datetime
) -> tuple[datetime, datetime] | None:
    a, b = max(start, lo), min(end, hi)
    return (a, b) if a < b else None


def compute(inputs: Inputs, *, billed_usd: Decimal | None = None) -> Report:
    """The report for a reservation. `billed_usd`, when the reconciled bill is known, replaces
    the contract-rate figure (rate fees plus prorated fees and egress) in the realised cost."""
    start, end, now = _utc(inputs.term_start), _utc(inputs.term_end), _utc(inputs.now)
    if end <= start:
        raise AvailabilityInputError("the term ends before it starts")
    if inputs.rate < 0 or inputs.gpus_per_node < 1 or inputs.contracted_nodes < 1:
        raise AvailabilityInputError("rate, GPUs per node and nodes must be positive")
    as_of = max(start, min(end, now))
    lanes, extra = _lanes(inputs)
    capacity = inputs.contracted_nodes
    down = _down_spans(inputs, start=start, as_of=as_of, now=now)
    maint: list[_Span] = []
    for w in inputs.maintenance:
        span = _clip(_utc(w.starts_at), _utc(w.ends_at), start, as_of)
        if span:
            maint.append((*span, w.nodes))
    gpus = capacity * inputs.gpus_per_node
    months = [
        _month(a, b, inputs=inputs, lanes=lanes, down=down, maint=maint, gpus=gpus)
        for a, b in month_bounds(start, as_of)
    ]
    whole = _tally(start, as_of, lanes=lanes, capacity=capacity, down=down, maint=maint)
    hours = _hours((as_of - start).total_seconds())
    rows = []
    for node in lanes:
        m, d = whole.per_node_maint[node], whole.per_node_down[node]
        rows.append(
            NodeRow(node, node not in extra, hours, m, d, _availability(hours, m, d, unit="h"))
        )
    report = term_totals(
        inputs=inputs, months=months, start=start, end=end, as_of=as_of, billed_usd=billed_usd,
        availability_pct=_term_availability(months),
    )  # fmt: skip
    report.nodes = rows
    if extra:
        report.notes.append(
            f"{', '.join(extra)}: named by an incident or window but not among the contracted "
            f"nodes; shown as lanes, and the allocation never counts more than {capacity} nodes."
        )
    return report


def _down_spans(inputs: Inputs, *, start: datetime, as_of: datetime, now: datetime) -> list[_Down]:
    """The outages that count as downtime, clipped to the term so far: a downtime severity in
    full (a whole-allocation one on every node), a degraded S2 at the agreed share."""
    terms = inputs.terms
    degraded = terms.degraded_downtime_pct / HUNDRED
    down: list[_Down] = []
    for o in inputs.outages:
        if o.severity in terms.downtime_severities or o.severity == UNAGREED_MAINTENANCE:
            weight = Decimal(1)
        elif o.severity == "S2" and degraded > 0:
            weight = degraded
        else:
            continue
        span = _clip(_utc(o.opened_at), _utc(o.restored_at or now), start, as_of)
        if span:
            nodes = () if o.severity in terms.whole_allocation_severities else o.nodes
            down.append((*span, nodes, weight))
    return down


def _availability(scheduled: Decimal, maint: Decimal, down: Decimal, *, unit: str) -> Figure:
    base = scheduled - maint
    if base <= 0:
        return Figure(
            None,
            f"no scheduled time outside maintenance ({fixed(scheduled)} {unit})",
            unit="availability",
        )
    pct = (Decimal(1) - down / base) * HUNDRED
    return Figure(
        pct,
        f"1 − {fixed(down)} down {unit} ÷ ({fixed(scheduled)} scheduled {unit} − {fixed(maint)} "
        f"maintenance {unit}) = {percent(pct, places=3)}",
        unit="availability",
    )


@dataclass(frozen=True)
class _Credit:
    """A month's SLA credit: the tier reached, the clock breaches, the cap, the dollars."""

    tier: Tier | None
    tier_pct: Figure
    breaches: int
    breach_pct: Figure
    pct: Figure
    credit: Figure


def _opened_in(inputs: Inputs, a: datetime, b: datetime) -> list[Outage]:
    """Incidents opened in [a, b): their breaches and lost GPU-hours count in that month."""
    return [
        o
        for o in inputs.outages
        if a <= _utc(o.opened_at) < b and o.severity != UNAGREED_MAINTENANCE
    ]


def _tier_figure(avail: Figure, tiers: Iterable[Tier]) -> tuple[Tier | None, Figure]:
    tier = tier_for(avail.value, tiers) if avail.value is not None else None
    if tier is None or avail.value is None:
        return tier, Figure(Decimal(0), "no tier reached: 0 %", unit="pct")
    return tier, Figure(
        tier.credit_pct,
        f"{percent(avail.value, places=3)} is below {percent(tier.below_pct)}: "
        f"{percent(tier.credit_pct)}",
        unit="pct",
    )


def _credit(*, avail: Figure, fees: Decimal, opened: list[Outage], terms: CreditTerms) -> _Credit:
    tier, tier_fig = _tier_figure(avail, terms.tiers)
    tier_pct = tier.credit_pct if tier else Decimal(0)
    breaches = sum(o.breaches for o in opened)
    breach_pct = terms.breach_credit_pct * breaches
    cap = credit_cap(terms=terms)
    raw = tier_pct + breach_pct
    pct = min(raw, cap)
    credit = cents(fees * pct / HUNDRED)
    return _Credit(
        tier=tier,
        tier_pct=tier_fig,
        breaches=breaches,
        breach_pct=Figure(
            breach_pct,
            f"{breaches} clock breaches × {percent(terms.breach_credit_pct)} = "
            f"{percent(breach_pct)}",
            unit="pct",
        ),
        pct=Figure(
            pct,
            f"min({percent(tier_pct)} + {percent(breach_pct)}, cap {percent(cap)}) = {percent(pct)}"
            if raw > cap
            else f"{percent(tier_pct)} + {percent(breach_pct)} = {percent(pct)} "
            f"(cap {percent(cap)})",
            unit="pct",
        ),
        credit=Figure(credit, f"{usd(fees)} × {percent(pct)} = {usd(credit)}", unit="usd"),
    )


def _lost(opened: list[Outage]) -> Figure:
    lost = sum((o.lost_gpu_hours for o in opened), Decimal(0))
    parts = " + ".join(f"{fixed(o.lost_gpu_hours)} ({o.key})" for o in opened) or "none"
    return Figure(lost, f"{parts} = {fixed(lost)} GPU-h")


def _month(
    a: datetime,
    b: datetime,
    *,
    inputs: Inputs,
    lanes: tuple[str, ...],
    down: list[_Down],
    maint: list[_Span],
    gpus: int,
) -> Month:
    capacity = inputs.contracted_nodes
    tally = _tally(a, b, lanes=lanes, capacity=capacity, down=down, maint=maint)
    hours = _hours((b - a).total_seconds())
    span = f"{a:%Y-%m-%d %H:%M} → {b:%Y-%m-%d %H:%M} UTC"
    scheduled = hours * capacity
    avail = _availability(scheduled, tally.maintenance, tally.down, unit="node-h")
    gpu_hours = hours * gpus
    fees = cents(gpu_hours * inputs.rate)
    opened = _opened_in(inputs, a, b)
    credit = _credit(avail=avail, fees=fees, opened=opened, terms=inputs.terms)
    severities = ", ".join(sorted(inputs.terms.downtime_severities)) or "none"
    if inputs.terms.degraded_downtime_pct and "S2" not in inputs.terms.downtime_severities:
        severities += f" (S2 at {percent(inputs.terms.degraded_downtime_pct)} of its duration)"
    return Month(
        label=f"{a:%Y-%m}",
        start=a,
        end=b,
        accepted_hours=Figure(hours, f"{span} = {fixed(hours)} h"),
        scheduled_node_hours=Figure(
            scheduled, f"{fixed(hours)} h × {capacity} nodes = {fixed(scheduled)} node-h"
        ),
        maintenance_node_hours=Figure(
            tally.maintenance,
            f"agreed maintenance inside {span} = {fixed(tally.maintenance)} node-h",
        ),
        down_node_hours=Figure(
            tally.down,
            f"incidents of severity {severities} outside maintenance = {fixed(tally.down)} node-h",
        ),
        availability_pct=avail,
        accepted_gpu_hours=Figure(
            gpu_hours, f"{fixed(hours)} h × {gpus} GPUs = {fixed(gpu_hours)} GPU-h"
        ),
        fees=Figure(
            fees,
            f"{fixed(gpu_hours)} GPU-h × {usd(inputs.rate, places=4)} = {usd(fees)}",
            unit="usd",
        ),
        tier=credit.tier,
        tier_credit_pct=credit.tier_pct,
        breaches=credit.breaches,
        breach_credit_pct=credit.breach_pct,
        credit_pct=credit.pct,
        credit=credit.credit,
        lost_gpu_hours=_lost(opened),
    )


def _term_availability(months: list[Month]) -> Figure:
    def total(attr: str) -> Decimal:
        return sum((getattr(m, attr).value or Decimal(0) for m in months), Decimal(0))

    return _availability(
        total("scheduled_node_hours"),
        total("maintenance_node_hours"),
        total("down_node_hours"),
        unit="node-h",
    )


__all__ = [
    "HOUR",
    "HUNDRED",
    "UNAGREED_MAINTENANCE",
    "AvailabilityInputError",
    "CreditTerms",
    "Figure",
    "Inputs",
    "Month",
    "NodeRow",
    "Outage",
    "Report",
    "Tier",
    "Window",
    "compute",
    "cost_per_useful_gpu_hour",
    "month_bounds",
    "tier_for",
]
