"""What the availability calculator takes and gives: plain frozen inputs, and figures that each
carry the formula that reached them (see `availability.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from engine.formatting import by_unit

HOUR = Decimal(3600)
# The severity of a short-notice maintenance window the buyer has not agreed to: downtime
# whatever severities the terms name.
UNAGREED_MAINTENANCE = "maintenance"
HUNDRED = Decimal(100)


class AvailabilityInputError(ValueError):
    """The inputs cannot describe a term (an end before its start, a negative rate)."""


@dataclass(frozen=True)
class Tier:
    below_pct: Decimal
    credit_pct: Decimal


@dataclass(frozen=True)
class CreditTerms:
    tiers: tuple[Tier, ...]
    cap_pct: Decimal | None = None
    downtime_severities: frozenset[str] = frozenset({"S1", "S3"})
    breach_credit_pct: Decimal = Decimal(0)
    # Downtime of these takes every node of the allocation, whichever nodes it names.
    whole_allocation_severities: frozenset[str] = frozenset({"S1"})
    # An S2 (degraded) not among the downtime severities counts this % of its duration as
    # downtime on its nodes; 0: not downtime at all.
    degraded_downtime_pct: Decimal = Decimal(0)


@dataclass(frozen=True)
class Outage:
    """An incident as the calculator sees it. `nodes` empty: the whole allocation."""

    key: str
    severity: str
    opened_at: datetime
    restored_at: datetime | None
    nodes: tuple[str, ...] = ()
    breaches: int = 0
    lost_gpu_hours: Decimal = Decimal(0)


@dataclass(frozen=True)
class Window:
    """Agreed maintenance. `nodes` empty: the whole allocation."""

    key: str
    starts_at: datetime
    ends_at: datetime
    nodes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Inputs:
    term_start: datetime  # the clock start: the later of acceptance and the first day
    term_end: datetime  # 00:00 UTC the day after the last day
    contracted_start: datetime  # the first day 00:00 UTC, for prorating fees and egress
    nodes: tuple[str, ...]  # the lanes; at least the contracted count
    contracted_nodes: int
    gpus_per_node: int
    rate: Decimal  # agreed price per GPU-hour
    fees_usd: Decimal
    egress_usd: Decimal
    terms: CreditTerms
    now: datetime
    outages: tuple[Outage, ...] = ()
    # Maintenance agreed (with notice, or short notice the buyer agreed to).
    maintenance: tuple[Window, ...] = ()


@dataclass(frozen=True)
class Figure:
    """A value and the working that reached it, with the numbers filled in. Pages, PDFs and
    exports print `text`, so the value shown is the one the working ends with."""

    value: Decimal | None
    formula: str
    unit: str = "hours"  # a key of engine.formatting.UNIT_FORMATS

    @property
    def text(self) -> str:
        return by_unit(self.value, unit=self.unit)


@dataclass
class Month:
    label: str  # "2026-01"
    start: datetime
    end: datetime
    accepted_hours: Figure
    scheduled_node_hours: Figure
    maintenance_node_hours: Figure
    down_node_hours: Figure
    availability_pct: Figure
    accepted_gpu_hours: Figure
    fees: Figure
    tier: Tier | None
    tier_credit_pct: Figure
    breaches: int
    breach_credit_pct: Figure
    credit_pct: Figure
    credit: Figure
    lost_gpu_hours: Figure


@dataclass
class NodeRow:
    node: str
    contracted: bool  # False: named by an incident or window but not one of the lanes given
    scheduled_hours: Decimal
    maintenance_hours: Decimal
    down_hours: Decimal
    availability_pct: Figure


@dataclass
class Report:
    term_start: datetime
    term_end: datetime
    as_of: datetime  # the figures run to here: the term end, or now while the term runs
    months: list[Month]
    nodes: list[NodeRow]
    accepted_gpu_hours: Figure
    lost_gpu_hours: Figure
    useful_gpu_hours: Figure
    fees: Figure
    prorated_extras: Figure
    credits: Figure
    paid: Figure
    cost_per_useful_gpu_hour: Figure
    # Over the whole term so far: the months' node-hours summed, then the one formula.
    availability_pct: Figure
    notes: list[str] = field(default_factory=list)
