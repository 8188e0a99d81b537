"""The scenarios' comparison as XLSX: the page's rows, with numbers as numbers (dollars,
useful GPU-hours, GPUs) so a steering committee can sum and chart them."""

from __future__ import annotations

import io
from collections.abc import Iterator
from decimal import Decimal

from django.utils import timezone
from django.utils.text import slugify
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font

from bids.models import CapacityRequest
from core.spreadsheet import safe_row
from evaluation.scenario_compare import scenario_table
from evaluation.scenario_models import AwardScenario

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _number(value: object) -> Decimal | None:
    return Decimal(str(value)) if value not in (None, "") else None


def scenario_rows(scenarios: list[AwardScenario]) -> Iterator[list[object]]:
    table = scenario_table(scenarios)
    yield ["Group", "Row", *[s.name for s in scenarios]]
    yield ["Outcome", "Objective", *[s.get_objective_display() for s in scenarios]]
    yield ["Outcome", "Status", *[c.status_text for c in table.columns]]
    yield ["Outcome", "Cost ($)", *[c.cost for c in table.columns]]
    yield ["Outcome", "Useful GPU-hours", *[c.useful for c in table.columns]]
    yield ["Outcome", "Useful GPU-hours per dollar", *[c.per_dollar for c in table.columns]]
    gpus: dict[tuple[str, str], dict[int, int]] = {}
    for i, s in enumerate(scenarios):
        for line in (s.result or {}).get("lines", []):
            gpus.setdefault((line["lot"], line["provider"]), {})[i] = int(line["gpus"])
    for (lot, provider), by_col in sorted(gpus.items()):
        yield [
            "GPUs awarded",
            f"{lot} · {provider}",
            *[by_col.get(i) for i in range(len(scenarios))],
        ]
    keys = sorted({key for c in table.columns for key in c.rule_costs})
    for key in keys:
        cells = [c.rule_costs.get(key) or {} for c in table.columns]
        label = next((rc["label"] for rc in cells if rc.get("label")), key)
        yield ["Rule cost ($)", label, *[_number(rc.get("cost_delta")) for rc in cells]]
        yield [
            "Rule cost (useful GPU-hours)",
            label,
            *[_number(rc.get("useful_delta")) for rc in cells],
        ]
    yield ["Infeasible", "Conflicting rules", *["; ".join(c.conflicts) for c in table.columns]]


def scenarios_xlsx(*, capacity_request: CapacityRequest, scenarios: list[AwardScenario]) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Scenarios"
    for line in scenario_rows(scenarios):
        sheet.append(safe_row(line))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.alignment = Alignment(wrap_text=True, vertical="top")
    sheet.column_dimensions["A"].width = 26
    sheet.column_dimensions["B"].width = 44
    for col in range(3, 3 + len(scenarios)):
        sheet.column_dimensions[sheet.cell(row=1, column=col).column_letter].width = 24
    sheet.freeze_panes = "C2"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def scenarios_filename(capacity_request: CapacityRequest) -> str:
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
    return f"scenarios-{slugify(capacity_request.title)[:60]}-{stamp}.xlsx"
