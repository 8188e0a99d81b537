"""Reading provider usage files (no database): the mapping guess, the lines, and the exact error
a bad file gets, with its line and column."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from openpyxl import Workbook

from engine.billing import (
    GPU_MINUTES,
    Mapping,
    UsageError,
    guess_mapping,
    open_table,
    preview,
    read_lines,
)
from tests.billing.conftest import DATA

HEADER = "usage_start,usage_end,instance_id,gpu_count,hours,rate_usd,amount_usd,line_type\n"


def _lines(text: str, mapping: Mapping | None = None) -> list:
    table = open_table(text.encode())
    return list(read_lines(table, mapping or guess_mapping(table.headers)))


def _error(text: str | bytes, mapping: Mapping | None = None) -> str:
    data = text.encode() if isinstance(text, str) else text
    with pytest.raises(UsageError) as caught:
        table = open_table(data, name="usage.csv")
        list(read_lines(table, mapping or guess_mapping(table.headers)))
    return str(caught.value)


def test_the_guess_maps_a_typical_export_header():
    guess = guess_mapping(HEADER.strip().split(","))
    assert guess.columns == {
        "period_start": "usage_start",
        "period_end": "usage_end",
        "node": "instance_id",
        "gpus": "gpu_count",
        "quantity": "hours",
        "rate": "rate_usd",
        "amount": "amount_usd",
        "line_type": "line_type",
    }
    assert guess.unit == "hours"


def test_a_gpu_minutes_column_is_guessed_as_gpu_minutes():
    guess = guess_mapping(
        ["Start Time", "End Time", "Instance ID", "GPUs", "GPU Minutes", "Unit Price", "Total"]
    )
    assert guess.unit == GPU_MINUTES
    assert guess.columns["quantity"] == "GPU Minutes" and guess.columns["amount"] == "Total"


def test_lines_read_as_exact_integers():
    (line,) = _lines(
        HEADER + "2026-03-01T06:00:00Z,2026-03-01T07:30:00Z,gpu-b01,8,1.5,2.50,30.00,gpu\n"
    )
    assert line.line == 2
    assert line.start == int(datetime(2026, 3, 1, 6, tzinfo=UTC).timestamp())
    assert line.end - line.start == 5400
    assert line.quantity == 12 * 60 * 1_000_000  # 8 GPUs × 1.5 h = 12 GPU-hours
    assert (line.rate, line.amount, line.kind) == (2_500_000, 30_000_000, "gpu")


def test_gpu_minutes_without_an_end_take_their_length_from_the_quantity():
    mapping = Mapping(
        columns={
            "period_start": "start",
            "node": "node",
            "gpus": "gpus",
            "quantity": "gpu_minutes",
            "rate": "rate",
            "amount": "amount",
        },
        unit=GPU_MINUTES,
    )
    (line,) = _lines(
        "start,node,gpus,gpu_minutes,rate,amount\n2026-03-01 06:00,n1,8,480,2.5,20\n", mapping
    )
    assert line.end - line.start == 3600 and line.quantity == 480_000_000


def test_a_header_without_the_needed_columns_names_them():
    message = _error("when,machine,cost\n2026-03-01,a,1\n")
    assert message.startswith("line 1: the mapping does not say which column holds: ")
    assert "GPU count" in message and "Hours or GPU-minutes" in message
    assert "The file's headers are: when, machine, cost." in message


def test_a_bad_number_names_its_line_and_column():
    good = "2026-03-01T06:00:00Z,2026-03-01T07:00:00Z,gpu-b01,8,1,2.50,20.00,gpu\n"
    bad = "2026-03-01T07:00:00Z,2026-03-01T08:00:00Z,gpu-b01,8,abc,2.50,20.00,gpu\n"
    assert _error(HEADER + good * 12 + bad) == "line 14, column 'hours': 'abc' is not a number."


def test_a_bad_date_names_its_line_column_and_the_format_expected():
    bad = "2026-02-30T06:00:00Z,2026-03-01T07:00:00Z,gpu-b01,8,1,2.50,20.00,gpu\n"
    assert _error(HEADER + bad) == (
        "line 2, column 'usage_start': '2026-02-30T06:00:00Z' is not a date and time "
        "(ISO 8601, e.g. 2026-03-01T14:00:00Z)."
    )


def test_a_stated_date_format_is_used_and_named_in_its_error():
    mapping = Mapping(
        columns={**guess_mapping(HEADER.strip().split(",")).columns}, date_format="%d/%m/%Y %H:%M"
    )
    row = "01/03/2026 06:00,01/03/2026 07:00,gpu-b01,8,1,2.50,20.00,gpu\n"
    assert _lines(HEADER + row, mapping)[0].end - _lines(HEADER + row, mapping)[0].start == 3600
    message = _error(HEADER + row.replace("01/03/2026 07:00", "2026-03-01"), mapping)
    assert message == (
        "line 2, column 'usage_end': '2026-03-01' is not a date and time (%d/%m/%Y %H:%M)."
    )


def test_an_unknown_line_type_and_fractional_gpus_are_refused():
    row = "2026-03-01T06:00:00Z,,gpu-b01,8,1,2.50,20.00,{}\n"
    assert _error(HEADER + row.format("storage")) == (
        "line 2, column 'line_type': 'storage' is not a line type (gpu, egress or fee)."
    )
    assert _error(HEADER + row.format("gpu").replace(",8,", ",7.5,")) == (
        "line 2, column 'gpu_count': '7.5' is not a whole number of GPUs."
    )


def test_an_empty_file_and_a_header_only_file():
    assert _error(b"") == "usage.csv is empty: export the usage lines with a header row."
    assert _error(b"\n\n") == "usage.csv is empty: export the usage lines with a header row."
    assert _lines(HEADER) == []


def test_a_binary_file_and_a_broken_workbook_are_named_as_such():
    assert (
        _error(b"\x89PNG\r\n\x00\x00") == "This is not a CSV or XLSX file (it holds binary bytes)."
    )
    assert _error(b"PK\x03\x04not really a zip").startswith(
        "usage.csv is not a readable XLSX workbook"
    )


def _xlsx(rows: list[list[object]]) -> bytes:
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_an_xlsx_export_reads_like_its_csv_with_typed_cells():
    start = datetime(2026, 3, 1, 6)
    data = _xlsx(
        [
            HEADER.strip().split(","),
            [start, datetime(2026, 3, 1, 7), "gpu-b01", 8, 1, 2.5, 20.0, "gpu"],
            [start, datetime(2026, 3, 1, 7), "gpu-b02", 8, "one", 2.5, 20.0, "gpu"],
        ]
    )
    table = open_table(data)
    lines = read_lines(table, guess_mapping(table.headers))
    first = next(lines)
    assert first.start == int(start.replace(tzinfo=UTC).timestamp())
    assert (first.quantity, first.rate, first.amount) == (480_000_000, 2_500_000, 20_000_000)
    with pytest.raises(UsageError, match=r"^line 3, column 'hours': 'one' is not a number\.$"):
        next(lines)


def test_the_preview_shows_each_row_as_read_and_the_rows_that_fail():
    data = (DATA / "usage_planted.csv").read_bytes()
    shown = preview(data, guess_mapping(open_table(data).headers), limit=3)
    assert [r.line for r in shown.rows] == [2, 3, 4]
    assert shown.rows[0].cells["node"] == "gpu-b01" and shown.rows[0].gpu_hours == "8.0000"
    broken = Mapping(
        columns={
            **guess_mapping(shown.headers).columns,
            "quantity": "rate_usd",
            "rate": "usage_end",
        }
    )
    row = preview(data, broken, limit=1).rows[0]
    assert row.error == ("line 2, column 'usage_end': '2026-03-01T06:00:00Z' is not a number.")


def test_times_with_an_offset_or_a_space_read_as_the_same_instant():
    rows = [
        "2026-03-01T08:00:00+02:00,2026-03-01 07:00:00,gpu-b01,8,1,2.50,20.00,gpu",
        "2026-03-01T06:00:00Z,2026-03-01T07:00,gpu-b01,8,1,2.50,20.00,gpu",
    ]
    first, second = _lines(HEADER + "\n".join(rows) + "\n")
    assert (first.start, first.end) == (second.start, second.end)
    assert first.end - first.start == 3600
