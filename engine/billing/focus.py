"""A reconciliation in FOCUS column names, so a FinOps team can load it beside its cloud bills.

FOCUS (the FinOps Open Cost and Usage Specification, https://focus.finops.org/, version 1.1) names
the columns clouds now export. Each billed line becomes one row: what the provider billed
(BilledCost, and ListCost at its own rate), what the contract allows (ContractedCost, at the
agreed ContractedUnitPrice per GPU-hour, and EffectiveCost, the same before SLA credits), the
usage period, the node as the resource. Columns FOCUS does not define carry the `x_` prefix it
reserves for providers: the line in the file and the reconciliation's findings.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TextIO

from engine.billing.lines import EGRESS, FEE, GPU, HOUR_MICRO, MICRO, UsageLine
from engine.billing.reconcile import Result, reconcile
from engine.billing.terms import Contract

COLUMNS = (
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "BillingCurrency",
    "BilledCost",
    "ListCost",
    "ContractedCost",
    "EffectiveCost",
    "ContractedUnitPrice",
    "PricingQuantity",
    "PricingUnit",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ResourceId",
    "ResourceName",
    "ServiceCategory",
    "ServiceName",
    "ProviderName",
    "PublisherName",
    "InvoiceIssuerName",
    "x_SourceLine",
    "x_Findings",
)
_SERVICE = {GPU: "Compute", EGRESS: "Networking", FEE: "Other"}
_DESCRIPTION = {GPU: "GPU usage", EGRESS: "Data transfer (egress)", FEE: "Fee"}


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _month(seconds: int) -> tuple[str, str]:
    moment = datetime.fromtimestamp(seconds, UTC)
    start = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    end = start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    return _iso(int(start.timestamp())), _iso(int(end.timestamp()))


def _decimal(micros: int) -> str:
    """Millionths as a plain decimal, exact: 12290000 -> "12.29"."""
    whole, frac = divmod(abs(micros), MICRO)
    text = f"{whole}.{frac:06d}".rstrip("0").rstrip(".")
    return f"-{text}" if micros < 0 else text


def _row(
    u: UsageLine,
    billed: int,
    allowed: int,
    rules: list[str],
    *,
    contract: Contract,
    issuer: str,
    text: Callable[[str], str],
) -> list[str]:
    gpu = u.kind == GPU
    hours = _decimal(u.quantity * MICRO // HOUR_MICRO) if gpu else ""
    period_start, period_end = _month(u.start)
    return [
        period_start,
        period_end,
        _iso(u.start),
        _iso(u.end) if u.end else "",
        "Usage",
        "",
        _DESCRIPTION[u.kind],
        "Usage-Based",
        u.currency or contract.currency,
        _decimal(billed),
        _decimal(billed),
        _decimal(allowed),
        _decimal(allowed),
        _decimal(contract.rate) if gpu else "",
        hours,
        "GPU-Hours" if gpu else "",
        hours,
        "GPU-Hours" if gpu else "",
        text(u.node),
        text(u.node),
        _SERVICE[u.kind],
        "GPU cluster reservation",
        text(issuer),
        text(issuer),
        text(issuer),
        str(u.line),
        ";".join(rules),
    ]


def write_focus(
    *,
    lines: Iterable[UsageLine],
    contract: Contract,
    provider: str,
    out: TextIO,
    text: Callable[[str], str] = str,
) -> Result:
    """Reconcile `lines` and write one FOCUS row per line to `out` (CSV with a header row);
    the reconciliation's result comes back for the totals. `text` is applied to the names that
    come from people (nodes, the provider), e.g. to keep a spreadsheet from reading a formula."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)

    def each(u: UsageLine, billed: int, allowed: int, rules: list[str]) -> None:
        writer.writerow(
            _row(u, billed, allowed, rules, contract=contract, issuer=provider, text=text)
        )

    return reconcile(lines, contract, max_listed=0, on_line=each)
