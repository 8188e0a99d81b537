"""CSV and XLSX of the comparison matrix: the same cells, in the same order, as the page."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from django.http import HttpResponse
from django.utils import timezone
from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill

from core.spreadsheet import safe_row
from evaluation.comparison import Comparison
from evaluation.exports_sheets import fill_cover, fill_explanations
from evaluation.team.sheet import add_team_sheet

CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_BEST = PatternFill("solid", fgColor="DAFBE1")


def matrix_rows(view: Comparison) -> Iterator[list[object]]:
    """Header, status lines, then one line per matrix row: group, row, unit, one value per bid."""
    yield ["Group", "Row", "Unit", *[c.name for c in view.columns]]
    freshness = "stale: re-scoring pending" if view.stale else "current"
    yield ["Outcome", "Scores", "", *[freshness for _ in view.columns]]
    yield [
        "Outcome",
        "Hard requirements",
        "",
        *["met" if c.qualified else "disqualified: " + "; ".join(c.reasons) for c in view.columns],
    ]
    for group in view.groups:
        for row in group.rows:
            yield [group.title, row.label, row.unit, *[cell.value for cell in row.cells]]


def _filename(view: Comparison, ext: str) -> str:
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
    return f"comparison-{slugify(view.request.title)[:60]}-{stamp}.{ext}"


def comparison_csv(view: Comparison) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    for line in matrix_rows(view):
        writer.writerow(safe_row("" if v is None else v for v in line))
    return out.getvalue().encode("utf-8-sig")  # the BOM makes spreadsheet apps read UTF-8


def comparison_xlsx(view: Comparison) -> bytes:
    """Three sheets: the cover, the matrix (units in their own column, header frozen) and each
    number's inputs and formula."""
    book = Workbook()
    cover = book.active
    assert cover is not None
    cover.title = "Cover"
    fill_cover(cover, view)
    sheet = book.create_sheet("Comparison")
    for line in matrix_rows(view):
        sheet.append(safe_row(line))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    # Highlight the same best cells as the page (data rows follow the header and two status rows).
    row_index = 4
    for group in view.groups:
        for row in group.rows:
            for col, cell in enumerate(row.cells, start=4):
                if cell.best:
                    sheet.cell(row=row_index, column=col).fill = _BEST
            row_index += 1
    sheet.column_dimensions["A"].width = 26
    sheet.column_dimensions["B"].width = 38
    for col in range(4, 4 + len(view.columns)):
        letter = sheet.cell(row=1, column=col).column_letter
        sheet.column_dimensions[letter].width = 22
    for row_cells in sheet.iter_rows(min_row=2, max_row=3):
        for c in row_cells:
            c.alignment = Alignment(wrap_text=True, vertical="top")
    sheet.freeze_panes = "D2"
    fill_explanations(book.create_sheet("Explanations"), view)
    add_team_sheet(book, view)  # when team members have set views of their own
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def comparison_response(view: Comparison, fmt: str) -> HttpResponse:
    if fmt == "csv":
        body, content_type = comparison_csv(view), CSV_TYPE
    else:
        body, content_type = comparison_xlsx(view), XLSX_TYPE
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{_filename(view, fmt)}"'
    return response
