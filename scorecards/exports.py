"""The scorecard's rows as CSV and XLSX: the same columns as the page's table."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from openpyxl import Workbook

from core.spreadsheet import safe_row
from engine.delivery.availability import Report
from scorecards.realised import Realised
from scorecards.selectors import SEVERITIES, Scorecard

HEADER: list[object] = [
    "Request",
    "Buyer",
    "Awarded (UTC)",
    "Status",
    "Burn-in runs",
    "Accepted on the first try",
    "Failed checks at burn-in",
    *[f"{s} incidents" for s in SEVERITIES],
    "Clock breaches",
    "Availability to date (%)",
    "Credits (USD)",
    "Lost GPU-hours",
    "Realised USD per useful GPU-hour",
    "Predicted at award",
    # While incidents are disputed: both parties' figures, and whose the columns above are.
    "Disputed incidents",
    "Availability, buyer's figure (%)",
    "Availability, provider's figure (%)",
    "Credits, buyer's figure (USD)",
    "Credits, provider's figure (USD)",
    "Totals use",
]


def rows(card: Scorecard) -> Iterator[list[object]]:
    yield list(HEADER)
    for line in card.lines:
        r = line.reservation
        yield safe_row(
            [
                r.request.title,
                r.request.buyer.name,
                r.awarded_at.strftime("%Y-%m-%d %H:%M"),
                r.get_status_display(),
                line.runs,
                "" if line.first_try is None else ("yes" if line.first_try else "no"),
                line.failed_checks,
                *[line.incidents[s] for s in SEVERITIES],
                line.breaches,
                *_delivered(line.realised),
                *_disputed(line.realised),
            ]
        )


def _disputed(r: Realised | None) -> list[object]:
    if r is None or not r.disputed:
        return [0 if r is not None else "", "", "", "", "", ""]
    buyer, provider = r.readings["buyer"], r.readings["provider"]

    def pct(report: Report) -> object:
        value = report.availability_pct.value
        return "" if value is None else round(float(value), 3)

    return [
        r.disputed,
        pct(buyer),
        pct(provider),
        float(buyer.credits.value or 0),
        float(provider.credits.value or 0),
        f"the {r.totals_reading}'s figures" if r.totals_reading else "neither: undisputed only",
    ]


def _delivered(r: Realised | None) -> list[object]:
    if r is None:
        return ["", "", "", "", ""]
    predicted = r.predicted.cost_per_useful if r.predicted else None
    return [
        "" if r.availability_pct is None else round(float(r.availability_pct), 3),
        float(r.credits),
        float(r.lost_gpu_hours),
        "" if r.cost_per_useful is None else float(r.cost_per_useful),
        "" if predicted is None else round(predicted, 4),
    ]


def scorecard_csv(card: Scorecard) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(rows(card))
    return out.getvalue().encode()


def scorecard_xlsx(card: Scorecard) -> bytes:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("Scorecard")
    for row in rows(card):
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
