"""A table as people make it: a CSV in any of the usual dialects, a workbook whose header sits
below a title block, or a cloud's Parquet export; what was detected, so the preview can show it
and the user override it.

The header row is found, not assumed: the first of the top rows in which enough cells name known
headers. A workbook is checked by `guard.check_xlsx` before openpyxl opens it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from engine.billing.errors import UsageError
from engine.billing.guard import MAX_CELL_TEXT, check_xlsx
from engine.billing.parquet import is_parquet, parquet_rows
from engine.billing.reader import check_text, is_xlsx, unpacked, xlsx_rows

DELIMITERS = (",", ";", "\t", "|")
HEADER_SCAN = 30  # rows searched for the header: title blocks are a few rows
MIN_KNOWN = 3  # known header names that make a row the header
SAMPLE = 200  # rows the detection looks at


@dataclass(frozen=True)
class Overrides:
    """What the user says about the file, each overriding what was detected (None: detect)."""

    delimiter: str | None = None
    decimal: str | None = None  # "." or ","
    date_order: str | None = None  # localized.ISO, DAY_FIRST or MONTH_FIRST
    header_row: int | None = None  # 1-based row of the file or sheet
    profile: str | None = None  # profiles.PROFILES key
    sheet: str | None = None


@dataclass(frozen=True)
class Detected:
    """How the file was read, as the preview prints it."""

    kind: str  # "csv", "xlsx" or "parquet"
    header_row: int
    delimiter: str = ""
    encoding: str = ""
    sheet: str = ""
    decimal: str = "."
    date_order: str = ""
    profile: str = ""
    total_rows: tuple[int, ...] = ()  # rows read as totals and not as lines

    def describe(self) -> dict[str, str]:
        names = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", ".": "point"}
        shown = {
            "File": self.kind.upper(),
            "Header row": str(self.header_row),
            "Profile": self.profile,
            "Decimal mark": names.get(self.decimal, self.decimal),
            "Dates": self.date_order,
        }
        if self.kind == "csv":
            shown["Delimiter"] = names.get(self.delimiter, self.delimiter)
            shown["Encoding"] = self.encoding
        elif self.kind == "xlsx":
            shown["Sheet"] = self.sheet
        if self.total_rows:
            shown["Total rows skipped"] = ", ".join(str(r) for r in self.total_rows)
        return shown


@dataclass
class Sheet:
    """The header (stripped), the rows after it as (row number, cells), and the detection."""

    headers: list[str]
    rows: Iterator[tuple[int, list[Any]]]
    detected: Detected
    sample: list[tuple[int, list[Any]]] = field(default_factory=list)
    # The rows above the header: an invoice's own lines ("Currency,AUD" in Google's cost table)
    preamble: list[list[Any]] = field(default_factory=list)


def _decode(data: bytes) -> tuple[str, str]:
    """UTF-8 (with or without a BOM), else Windows-1252: what Excel writes as "CSV" in Europe."""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "windows-1252"


def sniff_delimiter(*, text: str) -> str:
    """The delimiter that splits the most of the first rows into the same number (≥ 2) of
    cells; a decimal comma in a semicolon file splits unevenly under ",", so ";" wins there."""
    head = text[:65536]
    lines = head.splitlines()[:50]
    if len(head) == 65536 and len(lines) > 1:
        lines = lines[:-1]  # cut mid-row
    best, best_score = ",", (0, 0)
    for delimiter in DELIMITERS:
        widths = [len(r) for r in csv.reader(lines, delimiter=delimiter) if any(r)]
        counts: dict[int, int] = {}
        for width in widths:
            if width > 1:
                counts[width] = counts.get(width, 0) + 1
        if counts:
            width, count = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
            if (count, width) > best_score:
                best, best_score = delimiter, (count, width)
    return best


def _text_cells(cells: list[Any]) -> list[str]:
    return [c.strip() for c in cells if isinstance(c, str) and c.strip()]


def find_header(*, rows: list[tuple[int, list[Any]]], known: Callable[[str], bool]) -> int:
    """The row number of the header: the first row with MIN_KNOWN cells naming known headers,
    else the first with the most known names, else the first row of two or more text cells."""
    best, best_known = 0, 0
    for number, cells in rows:
        hits = sum(1 for c in _text_cells(cells) if known(c))
        if hits >= MIN_KNOWN:
            return number
        if hits > best_known:
            best, best_known = number, hits
    if best:
        return best
    for number, cells in rows:
        if len(_text_cells(cells)) >= 2:
            return number
    raise UsageError("no row of the file looks like a header; the file must name its columns.")


def _headers(cells: list[Any], line: int) -> list[str]:
    headers = ["" if c is None else str(c).strip() for c in cells]
    while headers and not headers[-1]:
        headers.pop()
    seen: set[str] = set()
    for header in headers:
        if header and header in seen:
            raise UsageError(f"the header '{header}' appears twice.", line=line)
        seen.add(header)
    return headers


def _split(
    numbered: Iterator[tuple[int, list[Any]]], known: Callable[[str], bool], at: int | None
) -> tuple[list[str], Iterator[tuple[int, list[Any]]], int, list[list[Any]]]:
    top = list(islice(numbered, HEADER_SCAN if at is None else max(at, 1)))
    row = at if at is not None else find_header(rows=top, known=known)
    cells = next((c for n, c in top if n == row), None)
    if cells is None:
        raise UsageError(f"the file has no row {row} to read as the header.")
    rest = [(n, c) for n, c in top if n > row]
    above = [c for n, c in top if n < row]
    return _headers(cells, row), _chain(rest, numbered), row, above


def _chain(
    first: list[tuple[int, list[Any]]], rest: Iterator[tuple[int, list[Any]]]
) -> Iterator[tuple[int, list[Any]]]:
    for item in first:
        if any(c is not None and c != "" for c in item[1]):
            yield item
    for item in rest:
        if any(c is not None and c != "" for c in item[1]):
            yield item


def _csv(data: bytes, known: Callable[[str], bool], over: Overrides) -> Sheet:
    text, encoding = _decode(data)
    first_line, _, remainder = text.partition("\n")
    delimiter = over.delimiter
    if first_line.strip().lower().startswith("sep=") and len(first_line.strip()) == 5:
        delimiter = delimiter or first_line.strip()[4]  # Excel's own hint line
        text = remainder
    delimiter = delimiter or sniff_delimiter(text=text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)

    def numbered() -> Iterator[tuple[int, list[Any]]]:
        line = 0
        try:
            for line, cells in enumerate(reader, start=1):
                for index, cell in enumerate(cells):
                    if len(cell) > MAX_CELL_TEXT:
                        raise UsageError(
                            f"a cell holds {len(cell):,} characters (at most {MAX_CELL_TEXT:,}).",
                            line=line,
                            column=f"#{index + 1}",
                        )
                yield line, list(cells)
        except csv.Error as exc:
            raise UsageError(f"the CSV cannot be read ({exc}).", line=line + 1) from None

    headers, rows, row, above = _split(numbered(), known, over.header_row)
    detected = Detected(kind="csv", header_row=row, delimiter=delimiter, encoding=encoding)
    return Sheet(headers=headers, rows=rows, detected=detected, preamble=above)


def _xlsx(data: bytes, name: str, known: Callable[[str], bool], over: Overrides) -> Sheet:
    check_xlsx(data, name=name)
    from openpyxl import load_workbook  # only workbooks pay for loading openpyxl

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        names = book.sheetnames
    except Exception as exc:  # a damaged workbook raises anything from KeyError to XML errors
        raise UsageError(f"{name or 'The file'} is not a readable XLSX workbook ({exc}).") from None
    if not names:
        raise UsageError("The workbook has no sheet.")
    title = over.sheet or names[0]
    if title not in names:
        raise UsageError(f"The workbook has no sheet '{title}' (it has {', '.join(names)}).")
    rows = xlsx_rows(data, book[title], title, book)
    headers, rest, row, above = _split(rows, known, over.header_row)
    detected = Detected("xlsx", row, sheet=title)
    return Sheet(headers=headers, rows=rest, detected=detected, preamble=above)


def _parquet(data: bytes, name: str, known: Callable[[str], bool]) -> Sheet:
    """A Parquet file names its columns in its schema: the header is always row 1."""
    headers, rest, row, _ = _split(parquet_rows(data, name=name), known, 1)
    return Sheet(headers=headers, rows=rest, detected=Detected("parquet", row))


def read_sheet(
    data: bytes, *, name: str = "", known: Callable[[str], bool], overrides: Overrides | None = None
) -> Sheet:
    """The file's header and rows, found and detected as described above; `known` says whether
    a cell's text is a header some profile knows. The first SAMPLE rows are also in `sample`."""
    over = overrides or Overrides()
    data = unpacked(data, name=name)
    if not data.strip():
        raise UsageError(
            f"{name or 'The file'} is empty: export the usage lines with a header row."
        )
    if is_xlsx(data):
        sheet = _xlsx(data, name, known, over)
    elif is_parquet(data):
        sheet = _parquet(data, name, known)
    else:
        check_text(data, name=name)
        sheet = _csv(data, known, over)
    sheet.sample = list(islice(sheet.rows, SAMPLE))
    sheet.rows = _chain(sheet.sample, sheet.rows)
    return sheet
