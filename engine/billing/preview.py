"""The first rows of a file as a mapping reads them: what the user checks before confirming."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from engine.billing.errors import UsageError
from engine.billing.lines import LineReader, gpu_hours
from engine.billing.mapping import FIELDS, Mapping
from engine.billing.reader import open_table
from engine.billing.reconcile import money
from engine.formatting import fixed


@dataclass
class PreviewRow:
    line: int
    cells: dict[str, str]  # our field -> the file's text in the mapped column
    gpu_hours: str = ""
    amount: str = ""
    error: str = ""


@dataclass
class Preview:
    headers: list[str] = field(default_factory=list)
    rows: list[PreviewRow] = field(default_factory=list)
    error: str = ""  # the file or the mapping as a whole


Row = tuple[int, list[str]]  # the line in the file, its cells as text


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def head_rows(data: bytes, *, name: str = "", limit: int = 10) -> tuple[list[str], list[Row]]:
    """The header and the first rows as text: what an upload keeps so that its mapping page
    previews any mapping without reading the file again. UsageError when it cannot be read."""
    table = open_table(data, name=name)
    rows = [(line, [_text(c) for c in cells]) for line, cells in islice(table.rows, limit)]
    return table.headers, rows


def preview_rows(headers: list[str], rows: list[Row], mapping: Mapping) -> Preview:
    """The kept first rows as `mapping` reads them."""
    out = Preview(headers=headers)
    index = {f: headers.index(h) for f, h in mapping.columns.items() if h in headers}
    try:
        reader = LineReader(headers, mapping)
    except UsageError as exc:
        out.error = str(exc)
        reader = None
    for line, cells in rows:
        row = PreviewRow(
            line=line,
            cells={f: _text(cells[i]) if i < len(cells) else "" for f, i in index.items()},
        )
        if reader is not None:
            try:
                parsed = reader.read(line, list(cells))
            except UsageError as exc:
                row.error = str(exc)
            else:
                quantity = parsed.quantity
                row.gpu_hours = fixed(gpu_hours(quantity), places=4) if quantity else ""
                row.amount = money(parsed.amount or 0)
        out.rows.append(row)
    return out


def preview(data: bytes, mapping: Mapping, *, name: str = "", limit: int = 10) -> Preview:
    try:
        headers, rows = head_rows(data, name=name, limit=limit)
    except UsageError as exc:
        return Preview(error=str(exc))
    return preview_rows(headers, rows, mapping)


__all__ = ["FIELDS", "Preview", "PreviewRow", "head_rows", "preview", "preview_rows"]
