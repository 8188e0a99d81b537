"""A reconciliation in FOCUS column names, so a FinOps team can load it beside its cloud bills.

FOCUS (the FinOps Open Cost and Usage Specification, https://focus.finops.org/, version 1.1) names
the columns clouds now export. Each billed line becomes one row: what the provider billed
(BilledCost, and ListCost at its own rate), what the agreed rate makes of the billed quantity
(ContractedCost = ContractedUnitPrice x PricingQuantity, as FOCUS defines it), what the contract
allows once every rule is applied (EffectiveCost, and x_AllowedCost), the usage period, the node
as the resource, the reservation as the billing account. Columns FOCUS does not define carry the
`x_` prefix it reserves for providers: the allowed cost, the line in the file and the findings.
tests/engine/billing/test_focus_conformance.py checks every row against the 1.1 column rules.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import TextIO

from engine.billing.lines import EGRESS, FEE, GPU, HOUR_MICRO, MICRO, UsageLine
from engine.billing.reconcile import Result, reconcile
from engine.billing.terms import Contract

COLUMNS = (
    "BillingAccountId",
    "BillingAccountName",
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
    "x_AllowedCost",
    "x_SourceLine",
    "x_Findings",
)
_SERVICE = {GPU: "Compute", EGRESS: "Networking", FEE: "Other"}
_DESCRIPTION = {GPU: "GPU usage", EGRESS: "Data transfer (egress)", FEE: "Fee"}
# A fee is bought once, not used: FOCUS's Purchase, One-Time (ConsumedQuantity then null).
_CATEGORY = {
    GPU: ("Usage", "Usage-Based"),
    EGRESS: ("Usage", "Usage-Based"),
    FEE: ("Purchase", "One-Time"),
}
# Egress and fees are billed as amounts, without a measured volume: FOCUS still wants a quantity
# for Usage and Purchase rows, so each such line is one "Unit" (a count unit of its UnitFormat).
_ONE, _UNIT = "1", "Unit"


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
    account: tuple[str, str],
    text: Callable[[str], str],
) -> list[str]:
    gpu = u.kind == GPU
    quantity = _decimal(u.quantity * MICRO // HOUR_MICRO) if gpu else _ONE
    unit = "GPU-Hours" if gpu else _UNIT
    price = _decimal(contract.rate) if gpu else _decimal(allowed)
    # FOCUS: ContractedCost is exactly ContractedUnitPrice x PricingQuantity, as printed.
    contracted = format((Decimal(price) * Decimal(quantity)).normalize(), "f")
    category, frequency = _CATEGORY[u.kind]
    consumed = (quantity, unit) if category == "Usage" else ("", "")
    period_start, period_end = _month(u.start)
    return [
        account[0],
        text(account[1]),
        period_start,
        period_end,
        _iso(u.start),
        _iso(u.end or u.start),
        category,
        "",
        _DESCRIPTION[u.kind],
        frequency,
        u.currency or contract.currency,
        _decimal(billed),
        _decimal(billed),
        contracted,
        _decimal(allowed),
        price,
        quantity,
        unit,
        *consumed,
        text(u.node),
        text(u.node),
        _SERVICE[u.kind],
        "GPU cluster reservation",
        text(issuer),
        text(issuer),
        text(issuer),
        _decimal(allowed),
        str(u.line),
        ";".join(rules),
    ]


def write_focus(
    *,
    lines: Iterable[UsageLine],
    contract: Contract,
    provider: str,
    out: TextIO,
    account: tuple[str, str] = ("", ""),
    text: Callable[[str], str] = str,
) -> Result:
    """Reconcile `lines` and write one FOCUS row per line to `out` (CSV with a header row);
    the reconciliation's result comes back for the totals. `account`: the billing account's id
    and name (FOCUS's BillingAccountId, never empty, and BillingAccountName). `text` is applied
    to the names that come from people (nodes, the provider, the account), e.g. to keep a
    spreadsheet from reading a formula."""
    if not account[0]:
        raise ValueError("A FOCUS export needs its billing account's id (BillingAccountId).")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)

    def each(u: UsageLine, billed: int, allowed: int, rules: list[str]) -> None:
        writer.writerow(
            _row(
                u,
                billed,
                allowed,
                rules,
                contract=contract,
                issuer=provider,
                account=account,
                text=text,
            )
        )

    return reconcile(lines, contract, max_listed=0, on_line=each)
