"""The reconciliation written in FOCUS column names: one row per billed line, its billed and
allowed costs, its findings, and columns the FOCUS 1.1 specification defines (or `x_`)."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from decimal import Decimal

from engine.billing import Outage, match_nodes
from engine.billing.focus import COLUMNS, write_focus
from engine.billing.lines import GPU
from tests.engine.billing.test_bill_profiles import FOCUS_1_1, _at, _bill, _contract


def _exported(name: str, rate: str) -> tuple[list[dict[str, str]], object]:
    bill = _bill(name)
    match = match_nodes(
        billed=[u.node for u in bill.lines if u.kind == GPU], nodes=["node-a", "node-b"]
    )
    lines = [replace(u, node=match.matched.get(u.node, u.node)) for u in bill.lines]
    outage = Outage(node="node-b", start=_at(1, 8), end=_at(1, 9), label="incident #1 (S1)")
    out = io.StringIO()
    result = write_focus(
        lines=lines,
        contract=_contract(rate, outage, clock=_at(1, 6)),
        provider="Northwind",
        account=("clusterbid-reservation-7", "Acme Research"),
        out=out,
    )
    return list(csv.DictReader(io.StringIO(out.getvalue()))), result


def test_every_line_is_a_focus_row_with_its_billed_and_allowed_cost_and_findings():
    rows, result = _exported("neocloud_invoice.csv", "2.5")
    assert {c for c in COLUMNS if not c.startswith("x_")} <= FOCUS_1_1
    assert len(rows) == result.lines
    billed = sum(Decimal(r["BilledCost"]) for r in rows)
    allowed = sum(Decimal(r["EffectiveCost"]) for r in rows)
    assert allowed == sum(Decimal(r["x_AllowedCost"]) for r in rows)
    assert billed * 1_000_000 == result.billed_total and allowed * 1_000_000 == result.allowed_total
    found = {int(r["x_SourceLine"]): r["x_Findings"] for r in rows if r["x_Findings"]}
    assert sorted(found.items()) == [(2, "before-clock"), (8, "node-out"), (9, "rate")]
    usage = [r for r in rows if r["ServiceCategory"] == "Compute"]
    assert all(r["PricingUnit"] == "GPU-Hours" and r["ContractedUnitPrice"] == "2.5" for r in usage)
    first = usage[0]
    assert first["ChargePeriodStart"] == "2026-03-01T05:00:00Z"
    assert first["BillingPeriodStart"] == "2026-03-01T00:00:00Z"
    assert first["BillingPeriodEnd"] == "2026-04-01T00:00:00Z"
    assert first["ResourceId"] == "node-a" and first["InvoiceIssuerName"] == "Northwind"
    assert first["BillingCurrency"] == "USD" and first["PricingQuantity"] == "8"
