"""CSV and XLSX of the monthly availability table: the same figures as the page, each with its
formula in the next column."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from decimal import Decimal

from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Font

from core.spreadsheet import safe_row
from engine.delivery.availability import Figure, Report
from engine.formatting import rounded

CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

PCT_PLACES = 3
COLUMNS: list[tuple[str, str]] = [
    ("Availability (%)", "availability_pct"),
    ("Scheduled (node-h)", "scheduled_node_hours"),
    ("Maintenance (node-h)", "maintenance_node_hours"),
    ("Down (node-h)", "down_node_hours"),
    ("Lost (GPU-h)", "lost_gpu_hours"),
    ("Accepted (GPU-h)", "accepted_gpu_hours"),
    ("Fees (USD)", "fees"),
    ("Tier credit (%)", "tier_credit_pct"),
    ("Breach credit (%)", "breach_credit_pct"),
    ("Credit (%)", "credit_pct"),
    ("Credit (USD)", "credit"),
]


def _value(figure: Figure, places: int = 2) -> object:
    """The figure as its formula rounds it, so a cell and the formula beside it agree."""
    return "" if figure.value is None else rounded(figure.value, places=places)


def month_rows(report: Report) -> Iterator[list[object]]:
    """Header, one line per month (value then formula for each figure), the term's totals."""
    yield ["Month", "Breaches", *[h for title, _ in COLUMNS for h in (title, f"{title}: formula")]]
    for month in report.months:
        figures = [getattr(month, attr) for _, attr in COLUMNS]
        values = [
            (_value(f, PCT_PLACES if attr.endswith("_pct") else 2), f.formula)
            for f, (_, attr) in zip(figures, COLUMNS, strict=True)
        ]
        yield [month.label, month.breaches, *[x for pair in values for x in pair]]
    yield [
        "Lost GPU-hours (term)",
        "",
        _value(report.lost_gpu_hours),
        report.lost_gpu_hours.formula,
    ]
    yield ["Credits (term, USD)", "", _value(report.credits), report.credits.formula]
    yield ["Paid after credits (USD)", "", _value(report.paid), report.paid.formula]
    cost = report.cost_per_useful_gpu_hour
    yield ["Realised cost per useful GPU-hour (USD)", "", _value(cost, 4),
           cost.formula]  # fmt: skip


def filename(title: str, ext: str) -> str:
    return f"availability-{slugify(title)[:60] or 'reservation'}.{ext}"


def availability_csv(report: Report) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    for line in month_rows(report):
        writer.writerow(safe_row("" if v is None else v for v in line))
    return out.getvalue().encode("utf-8-sig")  # the BOM makes spreadsheet apps read UTF-8


def availability_xlsx(report: Report) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Availability"
    for line in month_rows(report):
        sheet.append(safe_row(float(v) if isinstance(v, Decimal) else v for v in line))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "B2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
