"""Rows of a CSV or XLSX file, streamed: the header, then each data row with its line number.

A CSV is decoded as UTF-8 (a BOM is fine); an XLSX is read from its first sheet in openpyxl's
read-only mode, so neither is held in memory as a whole table.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.billing.errors import UsageError
from engine.billing.guard import check_xlsx

XLSX_MAGIC = b"PK\x03\x04"


@dataclass
class Table:
    """The header (as written, stripped) and an iterator of (line number, cells)."""

    headers: list[str]
    rows: Iterator[tuple[int, list[Any]]]


def is_xlsx(data: bytes) -> bool:
    return data[:4] == XLSX_MAGIC


def open_table(data: bytes, *, name: str = "") -> Table:
    """The file's header row and its data rows. An empty file, one without a header, or bytes that
    are neither UTF-8 text nor a workbook are refused with what to do about it."""
    if not data.strip():
        raise UsageError(
            f"{name or 'The file'} is empty: export the usage lines with a header row."
        )
    if is_xlsx(data):
        return _xlsx(data, name)
    if b"\x00" in data[:4096]:
        raise UsageError("This is not a CSV or XLSX file (it holds binary bytes).")
    return _csv(data)


def _headers(cells: list[Any], line: int) -> list[str]:
    headers = ["" if c is None else str(c).strip() for c in cells]
    while headers and not headers[-1]:
        headers.pop()
    if not any(headers):
        raise UsageError("the header row is empty; the first row must name the columns.", line=line)
    seen: set[str] = set()
    for header in headers:
        if header and header in seen:
            raise UsageError(f"the header '{header}' appears twice.", line=line)
        seen.add(header)
    return headers


def _csv(data: bytes) -> Table:
    try:
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
        reader = csv.reader(text)
        first = next(reader, None)
    except UnicodeDecodeError:
        raise UsageError("the file is not UTF-8 text; export it as UTF-8 CSV.", line=1) from None
    except csv.Error as exc:
        raise UsageError(f"the CSV cannot be read ({exc}).", line=1) from None
    if first is None:
        raise UsageError("The file is empty: export the usage lines with a header row.")
    headers = _headers(list(first), 1)

    def rows() -> Iterator[tuple[int, list[Any]]]:
        line = 1
        try:
            for line, cells in enumerate(reader, start=2):
                if cells:
                    yield line, cells
        except UnicodeDecodeError:
            raise UsageError("the file is not UTF-8 text here.", line=line + 1) from None
        except csv.Error as exc:
            raise UsageError(f"the CSV cannot be read ({exc}).", line=line + 1) from None

    return Table(headers=headers, rows=rows())


def _xlsx(data: bytes, name: str) -> Table:
    from openpyxl import load_workbook  # only workbooks pay for loading openpyxl

    check_xlsx(data, name=name)  # a zip bomb or a DTD is refused before openpyxl opens it
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise UsageError(f"{name or 'The file'} is not a readable XLSX workbook ({exc}).") from None
    sheet = book.worksheets[0] if book.worksheets else None
    if sheet is None:
        raise UsageError("The workbook has no sheet.")
    values = sheet.iter_rows(values_only=True)
    first = next(values, None)
    if first is None:
        raise UsageError(f"The first sheet ('{sheet.title}') is empty.")
    headers = _headers(list(first), 1)

    def rows() -> Iterator[tuple[int, list[Any]]]:
        try:
            for line, cells in enumerate(values, start=2):
                if any(c is not None and c != "" for c in cells):
                    yield line, list(cells)
        finally:
            book.close()

    return Table(headers=headers, rows=rows())
