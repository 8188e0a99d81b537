"""A Parquet export (AWS Data Exports' CUR 2.0 and FOCUS, Azure's and Oracle's exports) read as
the rows of the CSV the same export would have written: the column names, then each row's cells
as text, numbered as the CSV's lines are (the column names are line 1).

Rows are read one record batch at a time, so a month of hourly lines never sits in memory as a
whole table. Compressed columns can unpack far past the file's size: the row groups' stated
uncompressed size is checked against `engine.packed.MAX_UNPACKED` before a row is read.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from engine.billing.errors import UsageError
from engine.billing.guard import MAX_CELL_TEXT
from engine.packed import MAX_UNPACKED

MAGIC = b"PAR1"
BATCH_ROWS = 4096


def row_name(line: int) -> str:
    """A row's position as a Parquet file's reader names it: the first data row is row 1 (its
    line is 2, the column names being line 1 as in the CSV export)."""
    return f"row {line - 1}"


def is_parquet(data: bytes) -> bool:
    """Parquet's magic opens the file (and closes it: a cut-off file is refused on reading)."""
    return data[:4] == MAGIC


def parquet_rows(data: bytes, *, name: str = "") -> Iterator[tuple[int, list[Any]]]:
    """(1, the column names), then (line, cells) for each row. A damaged file, or one that
    would unpack past MAX_UNPACKED, is refused before its first row."""
    import pyarrow as pa  # only Parquet files pay for loading pyarrow
    import pyarrow.parquet as pq

    label = name or "This Parquet file"
    try:
        source = pq.ParquetFile(io.BytesIO(data))
        meta = source.metadata
        size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise UsageError(f"{label} cannot be read as Parquet ({exc}).") from None
    if size > MAX_UNPACKED:
        raise UsageError(
            f"{label} unpacks to {size / 1024**2:,.0f} MB (at most "
            f"{MAX_UNPACKED // 1024**2} MB): send one month's export at a time."
        )
    schema = source.schema_arrow
    maps = [pa.types.is_map(field.type) for field in schema]
    yield 1, list(schema.names)
    line = 1
    try:
        for batch in source.iter_batches(batch_size=BATCH_ROWS):
            columns = [column.to_pylist() for column in batch.columns]
            for values in zip(*columns, strict=True):
                line += 1
                yield (
                    line,
                    [_cell(value, line, index, maps[index]) for index, value in enumerate(values)],
                )
    except (pa.ArrowException, OSError) as exc:
        raise UsageError(
            f"{label} cannot be read past this row ({exc}).",
            line=line + 1,
            cell=row_name(line + 1),
        ) from None


def _cell(value: Any, line: int, index: int, is_map: bool) -> str:
    """The cell as the CSV export prints it: text as is, numbers in plain notation, times in
    ISO 8601 (UTC as Z), maps and lists (tags, CUR 2.0's `product`) as JSON."""
    text = _text(_pairs(value) if is_map and value is not None else value)
    if len(text) > MAX_CELL_TEXT:
        raise UsageError(
            f"a cell holds {len(text):,} characters (at most {MAX_CELL_TEXT:,}).",
            line=line,
            column=f"#{index + 1}",
            cell=row_name(line),
        )
    return text


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        return format(Decimal(text), "f") if "e" in text else text
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"), default=str)
    return str(value)


def _pairs(value: list[tuple[Any, Any]]) -> dict[str, Any]:
    """A Parquet map arrives as a list of (key, value) pairs; the CSV export prints an object."""
    return {str(key): item for key, item in value}
