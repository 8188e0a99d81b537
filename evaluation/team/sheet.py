"""The XLSX's team evaluation sheet: each view's ranking and weights, the disagreement, and
every rating with its comment (only when a member has set a view of their own)."""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.styles import Font

from core.spreadsheet import safe_row
from evaluation.comparison import Comparison
from evaluation.team.selectors import scored_from_columns, team_evaluation

_BOLD = Font(bold=True)


def add_team_sheet(book: Workbook, view: Comparison) -> None:
    if not view.columns:
        return
    team = team_evaluation(capacity_request=view.request, bids=scored_from_columns(view.columns))
    if not team.evaluators:
        return
    sheet = book.create_sheet("Team evaluation")
    sheet.append(["Team evaluation"])
    sheet.cell(row=1, column=1).font = _BOLD
    sheet.append([team.disagreement or "The evaluators rank the same bid first."])
    for ranking in team.views:
        sheet.append([])
        sheet.append([ranking.label])
        sheet.cell(row=sheet.max_row, column=1).font = _BOLD
        sheet.append(["Rank", "Bid", "Weighted total (0–100)"])
        for placed in ranking.placed:
            sheet.append(safe_row([placed.rank, placed.name, placed.total]))
        weights = ", ".join(f"{label} {share:.0%}" for label, _, share in ranking.weight_lines)
        sheet.append(safe_row(["Weights", weights]))
        for remark in ranking.remarks:
            sheet.append(
                safe_row(["Rating", remark.bid, remark.criterion, remark.score, remark.comment])
            )
    sheet.column_dimensions["A"].width = 28
    sheet.column_dimensions["B"].width = 30
    sheet.freeze_panes = "A2"
