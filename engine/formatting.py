"""How Clusterbid prints a duration, a size, a bandwidth, a link rate, money or a percentage: one
rule each.

Pages (through `core/templatetags/formatting.py`), PDF annexes, CSV/XLSX exports, check messages
and the JSON the charts read all call these, so one value reads the same everywhere. Plain
Python: the Django-free parsers and checks use it too.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, TypeGuard

DASH = "—"
MINUTES_PER_HOUR = 60
MINUTES_PER_DAY = 1440
# IEC units, as nvidia-smi and nccl-tests sizes are powers of two.
BYTE_UNITS: tuple[tuple[str, int], ...] = (
    ("TiB", 1 << 40),
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
)
# Bandwidths are GB/s (bytes), as nccl-tests prints busbw; link rates are Gb/s (bits), as
# ibstat prints them (docs/fixture-schema.md, "Units").
BANDWIDTH_UNIT = "GB/s"
LINK_RATE_UNIT = "Gb/s"


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """A real int or float that is neither NaN nor infinite (a bool is no number; neither is an
    integer too long for a float, as a hand-edited JSON file can hold)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def number(value: float) -> str:
    """400 -> '400', 46.5 -> '46.5', 385.127 -> '385.13', 1500 -> '1,500': at most 2 decimals."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def duration(minutes: Any) -> str:
    """A clock given in minutes: '45 min', '4 h', '2 d' (whole days from 48 h on), '90 min'.

    One number and one unit, no thousands separator, so the text also reads back through the
    questionnaire's `parse_duration` when a form shows it. Whole days count only from 48 h:
    '24 h' is a clock people say in hours.
    """
    if not is_finite_number(minutes):
        return DASH
    if minutes < 0:
        return f"-{duration(-minutes)}"
    if not float(minutes).is_integer():
        return f"{minutes:g} min"
    whole = int(minutes)
    if whole >= 2 * MINUTES_PER_DAY and whole % MINUTES_PER_DAY == 0:
        return f"{whole // MINUTES_PER_DAY} d"
    if whole >= MINUTES_PER_HOUR and whole % MINUTES_PER_HOUR == 0:
        return f"{whole // MINUTES_PER_HOUR} h"
    return f"{whole} min"


def countdown(seconds: Any) -> str:
    """A running contract clock: '2 h 05 min' from an hour on, '4 min 09 s' below it.

    static/js/incidents.js ticks the same text in the browser; keep the two in step.
    """
    if not is_finite_number(seconds):
        return DASH
    whole = int(abs(seconds))
    hours, rest = divmod(whole, 3600)
    text = f"{hours} h {rest // 60:02d} min" if hours else f"{rest // 60} min {rest % 60:02d} s"
    return text if seconds >= 0 else f"{text} overdue"


def data_size(size: Any) -> str:
    """Bytes in IEC units: '512 B', '1,000 B', '1 GiB', '1.5 MiB' (one decimal when not exact)."""
    if not is_finite_number(size):
        return DASH
    if size < 0:
        return f"-{data_size(-size)}"
    for unit, factor in BYTE_UNITS:
        if size >= factor:
            scaled = size / factor
            if scaled.is_integer():
                return f"{int(scaled):,} {unit}"
            return f"{scaled:,.1f} {unit}".replace(".0 ", " ")
    return f"{int(size):,} B"


def data_size_whole(size: int) -> str:
    """'8 GiB' or '1,536 KiB' when the size is a whole number of an IEC unit, else the byte count
    ('1,000 B'): text that reads back to the same number, for forms and validation messages,
    where `data_size`'s rounded '1.5 MiB' would change the value."""
    for unit, factor in BYTE_UNITS:
        if size >= factor and size % factor == 0:
            return f"{size // factor:,} {unit}"
    return f"{size:,} B"


def data_size_exact(size: Any) -> str:
    """'1 GiB (1,073,741,824 bytes)': the size as people read it, the exact count a contract
    agrees on beside it (annexes)."""
    if not is_finite_number(size) or abs(size) < BYTE_UNITS[-1][1]:
        return data_size(size)
    return f"{data_size(size)} ({int(size):,} bytes)"


def bandwidth(gbytes_per_s: Any) -> str:
    """Bus or network bandwidth in GB/s: '385.13 GB/s'."""
    return f"{number(gbytes_per_s)} {BANDWIDTH_UNIT}" if is_finite_number(gbytes_per_s) else DASH


def link_rate(gbits_per_s: Any) -> str:
    """A link or NIC rate in Gb/s: '400 Gb/s'."""
    return f"{number(gbits_per_s)} {LINK_RATE_UNIT}" if is_finite_number(gbits_per_s) else DASH


def _decimal(value: Any) -> Decimal | None:
    """A finite number as a Decimal; a float through its shortest text, so 2.675 stays 2.675."""
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if not is_finite_number(value):
        return None
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def rounded(value: Decimal, *, places: int = 2) -> Decimal:
    """`places` decimals, half up: how every figure rounds, on a page, in a formula or an export."""
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def cents(amount: Decimal) -> Decimal:
    """Money to the cent, half up: the one rounding every bill, fee, credit and total takes."""
    return rounded(amount, places=2)


def fixed(value: Any, *, places: int = 2) -> str:
    """'2,976.00': exactly `places` decimals, rounded half up, with thousands separators; a value
    that rounds to zero prints without a sign."""
    exact = _decimal(value)
    if exact is None:
        return DASH
    value = rounded(exact, places=places)
    return f"{value.copy_abs() if value.is_zero() else value:,.{places}f}"


def usd(value: Any, *, places: int = 2) -> str:
    """Dollars: '$86,554.40', '-$12.50', and '$2.0018' for a price per GPU-hour (places=4)."""
    text = fixed(value, places=places)
    if text == DASH:
        return DASH
    return f"-${text[1:]}" if text.startswith("-") else f"${text}"


def percent(value: Any, *, places: int | None = None) -> str:
    """A percentage already times 100: '99.500 %' with `places` decimals (half up); without
    places, the digits the value has: '25 %', '2.5 %' (credit tiers as the terms state them)."""
    if places is not None:
        text = fixed(value, places=places)
        return text if text == DASH else f"{text} %"
    exact = _decimal(value)
    return DASH if exact is None else f"{exact.normalize():f} %"


def _availability(value: Any) -> str:
    return percent(value, places=3)


def _rate(value: Any) -> str:
    return usd(value, places=4)


# The precision each kind of figure deserves: money to the cent, a price per GPU-hour to four
# places (a cent would hide the difference between two bids), an availability to three places
# (the tiers sit at 99.9 %), a credit percentage as the terms state it, hours to two places.
UNIT_FORMATS = {
    "usd": usd,
    "usd_rate": _rate,
    "availability": _availability,
    "pct": percent,
    "hours": fixed,
}


def by_unit(value: Any, *, unit: str) -> str:
    """A figure's value as its unit prints it (`UNIT_FORMATS`); an unknown unit prints to two
    places, a missing value as a dash."""
    if value is None:
        return DASH
    return UNIT_FORMATS.get(unit, fixed)(value)
