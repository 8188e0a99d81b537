"""A bill read by its profile (engine.billing.read_bill), as the upload row stores it: the
settings it is read with (kept in `UsageUpload.mapping`), and what reading it found (kept in
`UsageUpload.inspection`) so that pages and the API show it without reading the file again.

Plain translation between JSON and the engine; no database access."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields, replace
from datetime import UTC, datetime
from typing import Any

from engine.billing import (
    PROFILES,
    Bill,
    Mapping,
    NodeMatch,
    Overrides,
    UsageError,
    UsageLine,
    money,
    open_table,
    read_bill,
    read_lines,
)
from engine.billing.lines import GPU, gpu_hours
from engine.billing.localized import DATE_ORDERS
from engine.billing.profiles import GENERIC, is_known_header, recognise
from engine.billing.sheet import DELIMITERS, read_sheet
from engine.formatting import fixed

PREVIEW_LINES = 20
MAX_ERRORS = 200  # bad cells listed on the mapping page; the rest are counted
MAX_NODES = 500  # billed node ids kept in the inspection

# Our fields a profile maps, in the order the mapping page shows them.
BILL_FIELDS: dict[str, str] = {
    "period_start": "Usage start",
    "period_end": "Usage end",
    "node": "Node, instance or resource id",
    "instance_type": "Instance type",
    "details": "Price details (JSON)",
    "gpus": "GPU count",
    "quantity": "Quantity",
    "unit": "Unit of the quantity",
    "rate": "Rate",
    "amount": "Amount",
    "currency": "Currency",
    "exchange": "Exchange rate (pricing to billing)",
    "charge": "Charge type",
    "charge_class": "Charge class (corrections)",
    "credit": "Credit type",
    "meter": "Meter, SKU or description",
    "service": "Service",
    "provider": "Provider (FOCUS ProviderName)",
    "effective": "Effective cost (of usage a commitment covers)",
    "commitment_status": "Commitment status (used, unused)",
    "ri_effective": "Effective cost under a reserved instance",
    "sp_effective": "Effective cost under a savings plan",
    "commitment_type": "Commitment type (reserved instance, savings plan)",
    "pricing_model": "Pricing model (on demand, reservation, savings plan)",
    "capacity_status": "Capacity reservation status (used, unused)",
    "capacity_type": "Capacity reservation type (ODCR, Capacity Block)",
}
OVERRIDE_NAMES = tuple(f.name for f in fields(Overrides) if f.name != "profile")
PROFILE_CHOICES = {name: p.label for name, p in PROFILES.items()}
DELIMITER_CHOICES = {
    d: {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}[d] for d in DELIMITERS
}
DECIMAL_CHOICES = {".": "point (1,234.56)", ",": "comma (1.234,56)"}
DATE_ORDER_CHOICES = {o: o for o in DATE_ORDERS}


def headers_of(data: bytes, *, name: str, mapping: dict[str, Any] | None = None) -> list[str]:
    """The header row as found (below a title block too), under the stored settings."""
    sheet = read_sheet(
        data, name=name, known=is_known_header, overrides=overrides_of(mapping or {})
    )
    return list(sheet.headers)


def profile_of(headers: list[str]) -> str:
    """The recognised profile's name; "" for a file no profile recognises (our own simple
    headers and other layouts: read with the column mapping of `engine.billing.mapping`)."""
    found = recognise(headers=headers)
    return "" if found is GENERIC else found.name


def is_bill(mapping: dict[str, Any]) -> bool:
    """Whether the row is read by a profile (else by our simple-header mapping)."""
    return bool(mapping.get("profile"))


def overrides_of(mapping: dict[str, Any]) -> Overrides:
    raw = dict(mapping.get("overrides") or {})
    header_row = raw.get("header_row")
    return Overrides(
        delimiter=raw.get("delimiter") or None,
        decimal=raw.get("decimal") or None,
        date_order=raw.get("date_order") or None,
        header_row=int(header_row) if header_row else None,
        profile=str(mapping.get("profile") or "") or None,
        sheet=raw.get("sheet") or None,
    )


def read(
    data: bytes,
    *,
    name: str,
    mapping: dict[str, Any],
    node_gpus: int | None,
    propose: bool = False,
    max_errors: int = MAX_ERRORS,
) -> Bill:
    """The file read with the stored settings; `propose`: with the profile's proposed columns
    rather than the stored ones (the first read of a file)."""
    columns = None if propose or not mapping.get("columns") else dict(mapping["columns"])
    answers = {str(k): int(v) for k, v in dict(mapping.get("answers") or {}).items()}
    return read_bill(
        data,
        name=name,
        overrides=overrides_of(mapping),
        columns=columns,
        node_gpus=node_gpus,
        answers=answers,
        max_errors=max_errors,
    )


def node_map(*, mapping: dict[str, Any], billed: list[str], nodes: list[str]) -> dict[str, str]:
    """The confirmed billed id -> contract node; a billed id that is a contract node's own name
    needs no confirming."""
    same = {b: b for b in billed if b in nodes}
    confirmed = {str(k): str(v) for k, v in dict(mapping.get("node_map") or {}).items() if v}
    return same | confirmed


def renamed(lines: list[UsageLine], renames: dict[str, str]) -> list[UsageLine]:
    """The lines with each billed id that the node map names replaced by its contract node."""
    return [replace(u, node=renames[u.node]) if u.node in renames else u for u in lines]


def priceable_lines(
    bill: Bill, *, mapping: dict[str, Any], nodes: list[str]
) -> tuple[list[UsageLine], dict[str, str]]:
    """A bill's usage, egress and fee lines under their contract node names, and the node map
    used. UsageError, worded for the mapping page, while the bill cannot be priced as it
    stands: an instance type with no GPU count, or a cell that cannot be read."""
    if bill.questions:
        kinds = ", ".join(
            f"'{q.instance_type}'" if q.instance_type else "(no type)" for q in bill.questions
        )
        raise UsageError(
            f"{len(bill.questions)} instance type(s) have no known GPU count ({kinds}): answer "
            "on the mapping page how many GPUs one instance has.",
            line=bill.questions[0].lines[0] if bill.questions[0].lines else None,
        )
    if bill.errors:
        count = len(bill.errors) + bill.more_errors
        first = bill.errors[0]
        raise UsageError(
            f"{count} cell(s) cannot be read, all listed on the mapping page; the first: {first}",
            line=first.line,
            column=first.column,
            cell=first.cell,  # a workbook's cell, a Parquet file's row
        )
    renames = node_map(mapping=mapping, billed=billed_nodes(bill), nodes=nodes)
    return renamed(bill.lines, renames), renames


def usage_lines(
    data: bytes, *, name: str, mapping: dict[str, Any], nodes: list[str], node_gpus: int | None
) -> Iterable[UsageLine]:
    """The lines a reconciliation with `mapping` reads: a simple mapping's, or a bill's
    priceable lines (see `priceable_lines`)."""
    if not is_bill(mapping):
        return read_lines(open_table(data, name=name), Mapping.from_json(mapping))
    bill = read(data, name=name, mapping=mapping, node_gpus=node_gpus)
    return priceable_lines(bill, mapping=mapping, nodes=nodes)[0]


def _when(seconds: int | None) -> str:
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def _line(u: UsageLine) -> dict[str, Any]:
    return {
        "line": u.line,
        "start": _when(u.start),
        "end": _when(u.end),
        "node": u.node,
        "instance_type": u.instance_type,
        "gpus": u.gpus,
        "gpu_hours": fixed(gpu_hours(u.quantity), places=4) if u.quantity else "",
        "rate": money(u.rate) if u.rate is not None else "",
        "amount": money(u.amount) if u.amount is not None else "",
        "currency": u.currency,
        "kind": u.kind,
        "charge": u.charge or "usage",
    }


def billed_nodes(bill: Bill) -> list[str]:
    """The node ids the GPU lines name, in the order first billed."""
    return list(dict.fromkeys(u.node for u in bill.lines if u.kind == GPU and u.node))


def inspection(
    bill: Bill, *, headers: list[str], nodes: list[str], match: NodeMatch
) -> dict[str, Any]:
    """What the mapping page and the API show, as JSON."""
    profile = bill.proposal.profile
    billed = billed_nodes(bill)
    shown = sorted(bill.lines + bill.other, key=lambda u: u.line)[:PREVIEW_LINES]
    return {
        "detected": bill.detected.describe(),
        "settings": {
            "delimiter": bill.detected.delimiter,
            "decimal": bill.detected.decimal,
            "date_order": bill.detected.date_order,
            "header_row": bill.detected.header_row,
            "sheet": bill.detected.sheet,
            "kind": bill.detected.kind,
        },
        "profile": profile.name,
        "profile_label": profile.label,
        "headers": [h for h in headers if h],
        "columns": dict(bill.proposal.columns),
        "preview": [_line(u) for u in shown],
        "lines": len(bill.lines),
        "other": len(bill.other),
        "totals": {k: money(v) for k, v in bill.totals().items()},
        "errors": [
            {"line": e.line, "column": e.column, "cell": e.cell, "message": str(e)}
            for e in bill.errors
        ],
        "more_errors": bill.more_errors,
        "questions": [
            {
                "instance_type": q.instance_type,
                "lines": list(q.lines),
                "count": q.count,
                "ask": q.ask,
            }
            for q in bill.questions
        ],
        "billed_nodes": billed[:MAX_NODES],
        "more_billed_nodes": max(len(billed) - MAX_NODES, 0),
        "contract_nodes": list(nodes),
        "node_match": {
            "matched": {b: n for b, n in match.matched.items() if b in billed[:MAX_NODES]},
            "how": dict(match.how),
            "unmatched_billed": match.unmatched_billed[:MAX_NODES],
            "unmatched_nodes": list(match.unmatched_nodes),
        },
        "error": "",
    }


def failed_inspection(
    *, message: str, line: int | None, nodes: list[str], cell: str = ""
) -> dict[str, Any]:
    """The file cannot be read at all with these settings: why, for the page to show."""
    return {"error": message, "error_line": line, "error_cell": cell, "contract_nodes": list(nodes)}


def bad_cells(inspection: dict[str, Any]) -> tuple[list[str], int]:
    """The cells a stored inspection could not read, each worded with its place (sheet and
    cell, or line, and column), and how many more were counted beyond those listed. A reading
    that stopped at one cell (a number no reader can hold) is that cell."""
    cells = [str(e.get("message") or "") for e in inspection.get("errors") or []]
    stopped = inspection.get("error_line") is not None or inspection.get("error_cell")
    if inspection.get("error") and stopped:
        cells.insert(0, str(inspection["error"]))
    return cells, int(inspection.get("more_errors") or 0)
