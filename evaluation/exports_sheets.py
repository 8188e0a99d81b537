"""The XLSX's context sheets: a cover a signatory can file (request, owner, deadline, scoring
time, weights, ranking, the winner's verdict) and each number's inputs and formula."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.worksheet import Worksheet

from core.spreadsheet import safe_row
from engine.formatting import percent
from evaluation.comparison import CRITERION_LABELS, Comparison

_BOLD = Font(bold=True)


def _utc(value: datetime | None) -> str:
    return f"{value.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if value else "—"


def _heading(sheet: Worksheet, text: str) -> None:
    sheet.append([])
    sheet.append([text])
    sheet.cell(row=sheet.max_row, column=1).font = _BOLD


def fill_cover(sheet: Worksheet, view: Comparison) -> None:
    req, run = view.request, view.shown_run
    owner = req.created_by.get_username() if req.created_by is not None else "—"
    facts: list[tuple[str, Any]] = [
        ("Request", req.title),
        ("Buyer", req.buyer.name),
        ("Owner", owner),
        ("Status", str(req.get_status_display())),
        ("Allocation", f"{req.gpu_count} × {req.gpu_model} ({req.nodes} × {req.gpus_per_node})"),
        ("Term", f"{req.reservation_start:%Y-%m-%d} to {req.reservation_end:%Y-%m-%d}"),
        ("Bid deadline", _utc(req.bid_deadline)),
        ("Scored at", _utc(run.finished_at) if run else "not scored"),
        ("Scores", "stale: re-scoring pending" if view.stale else "current"),
        ("Bids", "anonymised (Bid A, Bid B, …)" if view.anonymised else "named"),
    ]
    sheet.append(["Comparison of bids"])
    sheet.cell(row=1, column=1).font = Font(bold=True, size=14)
    for label, value in facts:
        sheet.append(safe_row([label, value]))
        sheet.cell(row=sheet.max_row, column=1).font = _BOLD
    weights = (run.weights if run else None) or {}
    if weights:
        total = sum(weights.values()) or 1.0
        _heading(sheet, "Weights")
        for key, weight in weights.items():
            sheet.append([CRITERION_LABELS.get(key, key), percent(weight / total * 100, places=0)])
    _heading(sheet, "Ranking")
    sheet.append(["Rank", "Bid", "Weighted total", "Hard requirements"])
    for cell in sheet[sheet.max_row]:
        cell.font = _BOLD
    for col in view.columns:
        verdict = "met" if col.qualified else "disqualified: " + "; ".join(col.reasons)
        rank = col.rank if col.rank is not None else "—"
        sheet.append(safe_row([rank, col.name, round(col.total, 2), verdict]))
    sens = view.sensitivity or {}
    if sens.get("verdict"):
        _heading(sheet, "The winner's verdict")
        share = float(sens.get("winner_share") or 0.0) * 100
        text = (
            f"{sens.get('winner', 'nobody')}: {sens['verdict']} — wins "
            f"{percent(share, places=0)} of {sens.get('draws_text', '0')} random weight draws"
        )
        sheet.append(safe_row([text]))
        sheet.cell(row=sheet.max_row, column=1).alignment = Alignment(wrap_text=True)
    sheet.column_dimensions["A"].width = 24
    sheet.column_dimensions["B"].width = 48
    sheet.column_dimensions["C"].width = 16
    sheet.column_dimensions["D"].width = 60


def fill_explanations(sheet: Worksheet, view: Comparison) -> None:
    """One line per explained step of each number: bid, row, step, formula, value."""
    sheet.append(["Bid", "Row", "Step", "Formula", "Value"])
    for cell in sheet[1]:
        cell.font = _BOLD
    for group in view.groups:
        for row in group.rows:
            for col, cell in zip(view.columns, row.cells, strict=True):
                for step in cell.explain:
                    sheet.append(safe_row([col.name, row.label, step.get("label"),
                                           step.get("formula"), step.get("value")]))  # fmt: skip
    sheet.freeze_panes = "A2"
    for letter, width in zip("ABCDE", (20, 34, 34, 70, 18), strict=True):
        sheet.column_dimensions[letter].width = width
