"""What a profile is: the charge classes a bill's lines fall into, and the `Profile` each export
layout is read under (`profiles.py` holds the layouts)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.billing.localized import DAY_FIRST
from engine.billing.meters import Meter

# Charge classes. Only USAGE lines are priced; FEE lines are checked against the fees bid;
# the rest are listed and totalled, never counted as GPU usage.
USAGE, TAX, CREDIT, DISCOUNT, REFUND, FEE = "usage", "tax", "credit", "discount", "refund", "fee"
PURCHASE, ADJUSTMENT, CORRECTION = "purchase", "adjustment", "correction"
CHARGES = (USAGE, FEE, TAX, CREDIT, DISCOUNT, REFUND, PURCHASE, ADJUSTMENT, CORRECTION)

Row = dict[str, Any]  # our field -> the cell


@dataclass(frozen=True)
class Cover:
    """A commitment bought ahead that covers a usage line, in words: `what` it is ("a reserved
    instance") and `hint`, how to see what the line really cost when the file does not say."""

    what: str
    hint: str


def _no_cover(row: Row) -> Cover | None:
    return None


@dataclass(frozen=True)
class Profile:
    name: str
    label: str
    source: str  # where the layout is documented
    signature: tuple[tuple[str, ...], ...]  # each group: one of these headers must be present
    columns: dict[str, tuple[str, ...]]  # our field -> candidate headers, first present wins
    charge: Callable[[Row], str]
    meter: Callable[[Row, bool], Meter]  # the row, and whether its unit is a time
    date_order: str = DAY_FIRST  # when no date tells
    whole_day: bool = False  # a line without an end covers its date's whole day
    rate_per_gpu_hour: Callable[[str], bool] = field(default=lambda header: False)
    # The field holding a usage line's effective cost when a commitment bought ahead (a
    # reserved instance, a savings plan) covers it; None: the line is priced as billed.
    effective: Callable[[Row], str | None] = field(default=lambda row: None)
    # The commitment covering a usage line, whether or not the file states its effective cost:
    # a covered line without one bills 0.00 or its on-demand cost, which says nothing of what
    # the hour cost, and its rate finding says so.
    cover: Callable[[Row], Cover | None] = field(default=_no_cover)
    nulls: frozenset[str] = frozenset()  # cells that stand for an empty one ("NULL")
    # An end written as a bare date includes that day (Google's cost table: 03-01 to 03-31);
    # elsewhere whether "2026-03-02" ends a day or starts the next is not known, so it is read
    # as that date's midnight.
    inclusive_end_date: bool = False
    # The layout's own cost columns, named when a file has none of them (or leaves them empty
    # on every line): a usage-only export cannot be reconciled, and says so once.
    costs: tuple[str, ...] = ()


def cell_text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def cell_low(row: Row, name: str) -> str:
    return cell_text(row.get(name)).lower()
