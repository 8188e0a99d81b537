"""The differences of a reconciliation as CSV or XLSX: one row per difference, cells as data."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Font

from billing.models import UsageDifference, UsageUpload
from core.spreadsheet import safe_row
from engine.billing import RULES

CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
HEADER: list[object] = [
    "Line",
    "Rule",
    "Rule (words)",
    "Difference",
    "Billed (USD)",
    "Allowed (USD)",
]


def difference_rows(rows: QuerySet[UsageDifference]) -> Iterator[list[object]]:
    yield HEADER
    for d in rows.iterator(chunk_size=2000):
        yield [d.line, d.rule, RULES.get(d.rule, d.rule), d.message, d.billed_usd, d.allowed_usd]


def differences_csv(rows: QuerySet[UsageDifference]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    for line in difference_rows(rows):
        writer.writerow(safe_row(line))
    return out.getvalue().encode("utf-8-sig")  # the BOM makes spreadsheet apps read UTF-8


def differences_xlsx(rows: QuerySet[UsageDifference]) -> bytes:
    book = Workbook(write_only=False)
    sheet = book.active
    assert sheet is not None
    sheet.title = "Differences"
    for line in difference_rows(rows):
        sheet.append(safe_row(line))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    sheet.column_dimensions["C"].width = 40
    sheet.column_dimensions["D"].width = 90
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def differences_response(
    upload: UsageUpload, rows: QuerySet[UsageDifference], fmt: str
) -> HttpResponse:
    if fmt == "csv":
        body, content_type = differences_csv(rows), CSV_TYPE
    else:
        body, content_type = differences_xlsx(rows), XLSX_TYPE
    response = HttpResponse(body, content_type=content_type)
    stem = slugify(upload.original_name.rsplit(".", 1)[0])[:60] or "usage"
    response["Content-Disposition"] = f'attachment; filename="differences-{upload.pk}-{stem}.{fmt}"'
    return response
