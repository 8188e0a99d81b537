"""A provider's recorded track record, and the rule by which it takes over from the declared or
default node MTBF and the modelled restart times (reasoning in docs/scoring.md, "Track record").

The Django layer counts the record (`evaluation.history`); this module only summarises and
blends, so it stays importable without a database.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

#: Accepted node-hours below which the record is too thin to count at all.
MIN_NODE_HOURS = 10_000.0
#: The declared or default MTBF weighs as much as this many node-hours of record: at the
#: minimum the record counts half, at 40,000 node-hours 80 %.
PRIOR_NODE_HOURS = MIN_NODE_HOURS
#: Closed incidents needed before a median restart time replaces the modelled one.
MIN_CLOSED_INCIDENTS = 5


def _positive_or_zero(name: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{name}: must be a non-negative number, got {value!r}")


@dataclass(frozen=True)
class TimingRecord:
    """One restart part measured over closed incidents: its median and how many it rests on."""

    median_seconds: float | None = None
    samples: int = 0

    @classmethod
    def of(cls, seconds: Iterable[float]) -> TimingRecord:
        # A stamp recorded before the one it follows is a typing slip, not a negative repair.
        values = [float(s) for s in seconds if s is not None and s >= 0]
        return cls(statistics.median(values) if values else None, len(values))

    @property
    def usable(self) -> bool:
        return self.median_seconds is not None and self.samples >= MIN_CLOSED_INCIDENTS


@dataclass(frozen=True)
class ProviderHistory:
    """What the product recorded of one provider, over every buyer's accepted reservations.

    Holds counts only, never which buyer or reservation they came from."""

    reservations: int
    node_hours: float
    incidents: int
    closed_incidents: int = 0
    detection: TimingRecord = TimingRecord()
    repair: TimingRecord = TimingRecord()
    revalidation: TimingRecord = TimingRecord()

    def __post_init__(self) -> None:
        for name in ("reservations", "node_hours", "incidents", "closed_incidents"):
            _positive_or_zero(name, getattr(self, name))

    @property
    def enough_node_hours(self) -> bool:
        return self.node_hours >= MIN_NODE_HOURS

    @property
    def summary(self) -> str:
        """'3 reservations, 41,000 node-hours, 4 incidents': shown wherever the record is used."""
        plural = "" if self.reservations == 1 else "s"
        incidents = "" if self.incidents == 1 else "s"
        return (
            f"{self.reservations} reservation{plural}, {self.node_hours:,.0f} node-hours, "
            f"{self.incidents} incident{incidents}"
        )


@dataclass(frozen=True)
class RealisedMtbf:
    node_mtbf_hours: float
    credibility: float  # the record's share of the blended failure rate, 0-1
    formula: str


def realised_node_mtbf(prior_hours: float, history: ProviderHistory | None) -> RealisedMtbf | None:
    """The credibility-weighted node MTBF once the record reaches `MIN_NODE_HOURS`, else None.

    The failure rate is pooled: the prior counts as `PRIOR_NODE_HOURS` of exposure with
    `PRIOR_NODE_HOURS / prior` failures, the record adds its node-hours and incidents, so
    MTBF = (P + H) / (P / prior + n). More clean hours raise it, more incidents lower it, and a
    record with no incident yet still gets a finite figure.
    """
    if history is None or not history.enough_node_hours:
        return None
    p, h, n = PRIOR_NODE_HOURS, history.node_hours, history.incidents
    mtbf = (p + h) / (p / prior_hours + n)
    formula = (
        f"(P + H) / (P / prior + n) = ({p:,.0f} + {h:,.0f}) / ({p:,.0f} / {prior_hours:,.0f} "
        f"+ {n}); the record weighs H / (P + H) = {h / (p + h):.0%}"
    )
    return RealisedMtbf(mtbf, h / (p + h), formula)
