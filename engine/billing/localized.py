"""Numbers and dates as people write them: a decimal comma or point, thousands separators,
day-first or month-first dates, spreadsheet error values.

What a file uses is detected from many cells at once, never from one: "1,234" alone could be
1234 or 1.234, and "03/04/2026" alone could be March or April. What was detected is shown to the
user, who can override it (see `sheet.Detected`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

MICRO = 1_000_000
DOT, COMMA = ".", ","
DAY_FIRST, MONTH_FIRST, ISO = "day-first", "month-first", "iso"
DATE_ORDERS = (ISO, DAY_FIRST, MONTH_FIRST)
# No bill needs more digits than this; longer text is refused before int() parses it (a
# 5,000-digit cell would otherwise cost time and hit Python's own digit limit as a crash).
MAX_DIGITS = 30
SPREADSHEET_ERRORS = frozenset(
    {"#DIV/0!", "#N/A", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#NULL!", "#SPILL!", "#CALC!"}
)
_NOT_FINITE = frozenset({"nan", "-nan", "inf", "-inf", "+inf", "infinity", "-infinity"})
_SYMBOLS = "$€£¥ \u00a0"
_CODE = re.compile(r"^(?:[A-Z]{3}\s+)?(.*?)(?:\s+[A-Z]{3})?$")  # "USD 12.50", "12,50 EUR"
_NUMBERISH = re.compile(r"^[0-9][0-9.,'\u00a0 ]*$")
_SLASHED = re.compile(
    r"^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})"
    r"(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?)?$"
)


def _vote(text: str) -> str:
    """Which decimal mark one cell suggests: COMMA, DOT, or "" when it cannot tell."""
    t = text.strip().lstrip("-+(").rstrip(")").strip(_SYMBOLS)
    if not _NUMBERISH.match(t):
        return ""
    if "," in t and "." in t:
        return COMMA if t.rfind(",") > t.rfind(".") else DOT
    for mark, other in ((COMMA, DOT), (DOT, COMMA)):
        if mark in t:
            groups = t.split(mark)
            if len(groups) == 2 and len(groups[1]) != 3:
                return mark  # "2,10", "2.5": a fraction, not a thousands group
            if len(groups) > 2:
                return other  # "1,234,567": the mark groups thousands
    return ""


def detect_decimal(*, samples: Iterable[Any], delimiter: str = ",") -> str:
    """The decimal mark most cells agree on; with no evidence, a comma in a semicolon file
    (that is why such files use semicolons) and a point otherwise."""
    votes = {COMMA: 0, DOT: 0}
    for value in samples:
        if isinstance(value, str):
            mark = _vote(value)
            if mark:
                votes[mark] += 1
    if votes[COMMA] != votes[DOT]:
        return COMMA if votes[COMMA] > votes[DOT] else DOT
    return COMMA if delimiter == ";" else DOT


def detect_date_order(*, samples: Iterable[Any], default: str = DAY_FIRST) -> str:
    """ISO when the dates start with the year; otherwise a first part over 12 means day-first
    and a second part over 12 month-first. Nothing telling: `default` (shown, and overridable)."""
    first = second = iso = 0
    for value in samples:
        if not isinstance(value, str):
            continue
        text = value.strip()
        if re.match(r"^\d{4}-\d{2}-\d{2}", text):
            iso += 1
            continue
        match = _SLASHED.match(text)
        if match:
            first += int(match.group(1)) > 12
            second += int(match.group(2)) > 12
    if first or second:
        return DAY_FIRST if first >= second else MONTH_FIRST
    return ISO if iso else default


def _micros(whole: str, frac: str) -> int:
    digits = len(whole) + len(frac)
    if digits > MAX_DIGITS:
        raise ValueError(f"has {digits} digits; no bill needs more than {MAX_DIGITS}")
    micros = int(whole or "0") * MICRO + int((frac[:6] or "0").ljust(6, "0"))
    if len(frac) > 6 and frac[6] >= "5":
        micros += 1  # half up, as the rest of the engine rounds
    return micros


def _strip(text: str) -> tuple[str, bool]:
    """The digits and marks of a number, and whether it is negative ("-5", "(5)", "5-")."""
    negative = False
    if text.startswith("(") and text.endswith(")"):  # accounting negatives
        text, negative = text[1:-1].strip(), True
    text = _CODE.sub(r"\1", text).strip(_SYMBOLS)
    if text.endswith("-"):
        text, negative = text[:-1], True
    if text[:1] in "+-":
        negative = negative or text[0] == "-"
        text = text[1:].strip(_SYMBOLS)
    return text, negative


def parse_number(value: Any, *, decimal: str = DOT) -> int:
    """A number in millionths (micro-dollars, micro-hours), exact for up to six decimals.
    Raises ValueError with the reason: a spreadsheet error, NaN, too many digits, not a number."""
    if isinstance(value, bool):
        raise ValueError("is a true/false value, not a number")
    if isinstance(value, int):
        return value * MICRO
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"'{value}' is not a finite number")
        if abs(value) >= 10.0**MAX_DIGITS:
            raise ValueError(f"{value:.3g} is too large for a bill")
        return round(Decimal(repr(value)) * MICRO)  # repr: 2.1, not 2.1000000000000000888
    if isinstance(value, str):  # the usual cell, "98.32": skip the marks, symbols and groups
        whole, mark, frac = value.partition(decimal)
        if (
            whole.isdigit()
            and whole.isascii()
            and (not mark or (frac.isdigit() and frac.isascii()))
        ):
            return _micros(whole, frac)
    raw = str(value).strip()
    if raw.upper() in SPREADSHEET_ERRORS or raw.startswith("#"):
        raise ValueError(f"'{raw}' is a spreadsheet error, not a number")
    if raw.lower() in _NOT_FINITE:
        raise ValueError(f"'{raw}' is not a finite number")
    text, negative = _strip(raw)
    group = DOT if decimal == COMMA else COMMA
    whole, mark, frac = text.partition(decimal)
    whole = re.sub(r"[\u00a0 ']", "", whole).replace(group, "")
    if ((whole.isascii() and whole.isdigit()) or (mark and not whole)) and (
        not frac or (frac.isascii() and frac.isdigit())
    ):
        micros = _micros(whole, frac)
    else:
        micros = _exponent(text, raw)
    return -micros if negative else micros


def _exponent(text: str, raw: str) -> int:
    """ "1.5E+03" as some exports write large or tiny numbers; anything else is no number."""
    if not re.fullmatch(r"\d*\.?\d+[eE][+-]?\d{1,3}", text):
        raise ValueError(f"'{raw[:40]}' is not a number")
    try:
        return int((Decimal(text) * MICRO).to_integral_value())
    except InvalidOperation:
        raise ValueError(f"'{raw[:40]}' is not a number") from None


def _slashed(match: re.Match[str], order: str) -> datetime:
    a, b, year = int(match.group(1)), int(match.group(2)), int(match.group(3))
    day, month = (a, b) if order == DAY_FIRST else (b, a)
    hour, minute = int(match.group(4) or 0), int(match.group(5) or 0)
    second = int(match.group(6) or 0)
    meridiem = (match.group(7) or "").lower()
    if meridiem:
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    return datetime(year, month, day, hour, minute, second)


_BARE_DATE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2}|\d{1,2}[/.\-]\d{1,2}[/.\-]\d{4})\s*$")


def is_bare_date(value: Any) -> bool:
    """Whether a cell holds a date and no time of day ("2026-03-31", "31/03/2026")."""
    if isinstance(value, date):
        return not isinstance(value, datetime)
    return isinstance(value, str) and _BARE_DATE.match(value) is not None


def parse_time(value: Any, *, order: str = ISO) -> int:
    """UTC epoch seconds of a date or date and time: a workbook's datetime, ISO 8601 (with "Z",
    an offset or " UTC"), or "31/01/2026 14:00" read in `order`. A time without a zone is UTC,
    as usage exports are. Raises ValueError naming what was expected."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip()
        if text.endswith(" UTC"):
            text = text[:-4]
        match = _SLASHED.match(text)
        try:
            if match:
                moment = _slashed(match, MONTH_FIRST if order == MONTH_FIRST else DAY_FIRST)
            else:
                moment = datetime.fromisoformat(text.replace("/", "-"))
        except ValueError:
            want = "31/01/2026 14:00" if order == DAY_FIRST else "2026-01-31T14:00:00Z"
            if order == MONTH_FIRST:
                want = "01/31/2026 14:00"
            raise ValueError(f"'{text[:40]}' is not a date and time (e.g. {want})") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())
