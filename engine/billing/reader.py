"""Rows of a CSV, XLSX or Parquet file, streamed: the header, then each data row with its line
number.

A CSV is decoded as UTF-8 (a BOM is fine); an XLSX is read from its first sheet in openpyxl's
read-only mode; a Parquet file one record batch at a time (`engine.billing.parquet`). None is
held in memory as a whole table.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.billing.errors import UsageError
from engine.billing.guard import MAX_CELL_TEXT, check_xlsx
from engine.billing.parquet import is_parquet, parquet_rows, row_name
from engine.packed import PackedError, gunzipped

XLSX_MAGIC = b"PK\x03\x04"


@dataclass
class Table:
    """The header (as written, stripped) and an iterator of (line number, cells)."""

    headers: list[str]
    rows: Iterator[tuple[int, list[Any]]]
    kind: str = "csv"  # "csv", "xlsx" or "parquet": a Parquet file's errors name rows


def is_xlsx(data: bytes) -> bool:
    return data[:4] == XLSX_MAGIC


# Clouds deliver their exports compressed or columnar (AWS Data Exports, Oracle's cost reports:
# gzip or Parquet; Google: gzip). gzip is unpacked (`unpacked`) and Parquet read as it is; the
# rest are refused by name, with what to send instead.
_PACKED = (
    (b"BZh", "bzip2-compressed (.bz2): unpack it and send the .csv inside"),
    (b"\xfd7zXZ\x00", "xz-compressed (.xz): unpack it and send the .csv inside"),
)


def unpacked(data: bytes, *, name: str = "") -> bytes:
    """A gzipped export (`…-00001.csv.gz`) unpacked, up to `engine.packed.MAX_UNPACKED`;
    other bytes as they are."""
    try:
        return gunzipped(data)
    except PackedError as exc:
        tail = ": send one month's export at a time" if exc.too_large else ""
        raise UsageError(f"{name or 'This file'} is {exc}{tail}.") from None


def check_text(data: bytes, *, name: str = "") -> None:
    """Refuse bytes that are no CSV text, naming the format when it is a known one."""
    for magic, what in _PACKED:
        if data.startswith(magic):
            raise UsageError(f"{name or 'This file'} is {what}.")
    if b"\x00" in data[:4096]:
        raise UsageError("This is not a CSV or XLSX file (it holds binary bytes).")


def open_table(data: bytes, *, name: str = "") -> Table:
    """The file's header row and its data rows. An empty file, one without a header, or bytes that
    are neither UTF-8 text nor a workbook are refused with what to do about it."""
    data = unpacked(data, name=name)
    if not data.strip():
        raise UsageError(
            f"{name or 'The file'} is empty: export the usage lines with a header row."
        )
    if is_xlsx(data):
        return _xlsx(data, name)
    if is_parquet(data):
        return _parquet(data, name)
    check_text(data, name=name)
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


def _parquet(data: bytes, name: str) -> Table:
    rows = parquet_rows(data, name=name)
    line, first = next(rows)
    return Table(headers=_headers(first, line), rows=rows, kind="parquet")


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
    values = xlsx_rows(data, sheet, sheet.title, book)
    first = next(values, None)
    if first is None:
        raise UsageError(f"The first sheet ('{sheet.title}') is empty.")
    headers = _headers(list(first[1]), 1)

    def rows() -> Iterator[tuple[int, list[Any]]]:
        for line, cells in values:
            if any(c is not None and c != "" for c in cells):
                yield line, cells

    return Table(headers=headers, rows=rows())


def _locate(data: bytes, part: str, row: int) -> str:
    """The cell of `row` whose number openpyxl could not parse ("NaN", 5,000 digits): read
    again from the sheet's XML only when a row failed, to name the cell rather than the row.
    The guard has refused DTDs and oversized parts, so parsing the part here is bounded."""
    from xml.etree.ElementTree import iterparse

    ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive, archive.open(part) as stream:
            for _, element in iterparse(stream):
                if element.tag != f"{ns}c":
                    continue
                ref = element.get("r", "")
                value = element.findtext(f"{ns}v") or ""
                if (
                    ref.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == str(row)
                    and element.get("t", "n") == "n"
                    and not re.fullmatch(r"-?\d{1,30}(\.\d{0,30})?([eE][-+]?\d{1,3})?", value)
                ):
                    return f"cell {ref}: '{value[:20]}{'…' if len(value) > 20 else ''}'"
                element.clear()
    except Exception:  # only a better message was at stake
        return ""
    return ""


def xlsx_rows(data: bytes, sheet: Any, title: str, book: Any) -> Iterator[tuple[int, list[Any]]]:
    """The sheet's rows; a cell text over Excel's own limit, or a workbook openpyxl cannot
    parse, stops with the sheet and row named rather than an exception from deep inside."""
    number = 0
    try:
        for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            cells = list(values)
            for index, cell in enumerate(cells):
                if isinstance(cell, str) and len(cell) > MAX_CELL_TEXT:
                    from openpyxl.utils import get_column_letter

                    raise UsageError(
                        f"the cell holds {len(cell):,} characters (at most {MAX_CELL_TEXT:,}).",
                        line=number,
                        cell=f"sheet '{title}', cell {get_column_letter(index + 1)}{number}",
                    )
            yield number, cells
    except UsageError:
        raise
    except Exception as exc:  # openpyxl raises many kinds on a damaged part; all mean the same
        cell = _locate(data, getattr(sheet, "_worksheet_path", "").lstrip("/"), number + 1)
        if cell:
            raise UsageError(
                "this is not a number a bill can hold; fix the cell and export again.",
                line=number + 1,
                cell=f"sheet '{title}', {cell}",
            ) from None
        raise UsageError(
            f"the workbook cannot be read past this row ({type(exc).__name__}: {str(exc)[:200]}).",
            cell=f"sheet '{title}', row {number + 1}",
        ) from None
    finally:
        book.close()


def positioned(exc: UsageError, table: Table) -> UsageError:
    """A row's error as the table's kind names positions: a Parquet file's "row N" (its first
    data row is row 1), a CSV's "line N"."""
    if table.kind != "parquet" or exc.cell or exc.line is None or exc.line < 2:
        return exc
    return UsageError(exc.reason, line=exc.line, column=exc.column, cell=row_name(exc.line))
