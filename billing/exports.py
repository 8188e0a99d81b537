"""The differences of a reconciliation as CSV or XLSX: one row per difference, cells as data."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Font

from billing import bills, selectors
from billing.models import UsageDifference, UsageState, UsageUpload
from core.spreadsheet import safe_cell, safe_row
from engine.billing import RULES, UsageError
from engine.billing.focus import write_focus

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


def focus_response(upload: UsageUpload) -> HttpResponse:
    """The latest reconciliation, every billed line in FOCUS column names (engine.billing.focus),
    read again with the exact mapping it ran with. A file not reconciled has nothing to export."""
    if upload.state != UsageState.DONE:
        raise Http404("This file has not been reconciled yet.")
    reservation = upload.reservation
    mapping = upload.reconciled_mapping or upload.mapping
    contract = selectors.contract_for(reservation=reservation)
    try:
        lines = bills.usage_lines(
            upload.read_bytes(),
            name=upload.original_name,
            mapping=mapping,
            nodes=list(contract.nodes),
            node_gpus=selectors.node_gpus(reservation=reservation),
        )
        out = io.StringIO()
        write_focus(
            lines=lines,
            contract=contract,
            provider=reservation.bid.provider.name,
            # The billing account is the reservation: one contract, one buyer, one provider.
            account=(f"clusterbid-reservation-{reservation.pk}", reservation.request.buyer.name),
            out=out,
            text=lambda value: str(safe_cell(value)),
        )
    except UsageError as exc:  # the file changed under the mapping: say so, never a 500
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    response = HttpResponse(out.getvalue().encode("utf-8"), content_type=CSV_TYPE)
    name = slugify(upload.original_name.rsplit(".", 1)[0]) or "usage"
    response["Content-Disposition"] = f'attachment; filename="{name}-focus.csv"'
    return response
