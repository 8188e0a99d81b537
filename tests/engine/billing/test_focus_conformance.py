"""Our FOCUS export checked against the FOCUS 1.1 specification's column rules (focus_spec.py
says where each comes from, and why not with focus-validator): every Mandatory column present,
no column FOCUS does not define unless `x_`-prefixed, no null where nulls are not allowed, only
allowed values, numbers, dates and currency codes in the spec's formats, and the conditional
rules that tie the columns we emit together. Run on an export of every sample layout, with an
egress and a fee line added (the samples bill GPU time only)."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import replace
from decimal import Decimal

import pytest

from engine.billing import Outage, match_nodes
from engine.billing.focus import COLUMNS, write_focus
from engine.billing.lines import EGRESS, FEE, GPU
from tests.engine.billing.focus_spec import SPEC_1_1
from tests.engine.billing.test_bill_profiles import AZURE, HOURLY, _at, _bill, _contract

# specification/attributes: numeric_format.md, datetime_format.md, currency_code_format.md.
NUMBER = re.compile(r"-?(\d+(\.\d+)?|\.\d+)([eE]-?\d+)?")
MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
CURRENCY = re.compile(r"[A-Z]{3}")
SAMPLES = [(name, rate, currency) for name, _, rate, currency, *_ in HOURLY] + [
    (AZURE[0], AZURE[2], AZURE[3])
]


def _export(name: str, rate: str, currency: str) -> list[dict[str, str]]:
    bill = _bill(name)
    gpu_lines = [u for u in bill.lines if u.kind == GPU]
    billed = list(dict.fromkeys(u.node for u in gpu_lines))
    match = match_nodes(billed=billed, nodes=["node-a", "node-b"])
    lines = [replace(u, node=match.matched.get(u.node, u.node)) for u in bill.lines]
    last = max(lines, key=lambda u: u.line)
    lines += [
        replace(last, line=last.line + 1, kind=EGRESS, quantity=0, rate=None, amount=120 * 10**6),
        replace(last, line=last.line + 2, kind=FEE, quantity=0, rate=None, amount=300 * 10**6),
    ]
    outage = Outage(node="node-b", start=_at(1, 8), end=_at(1, 9), label="incident #1 (S3)")
    out = io.StringIO()
    write_focus(
        lines=lines,
        contract=_contract(rate, outage, clock=_at(1, 6), currency=currency),
        provider="Northwind",
        account=("clusterbid-reservation-7", "Acme Research"),
        out=out,
    )
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def _null(value: str) -> bool:
    return value == ""  # CSV has no other null; null_handling.md forbids placeholders


def test_the_columns_are_focus_1_1s_or_x_prefixed_and_every_mandatory_one_is_there():
    mandatory = {name for name, c in SPEC_1_1.items() if c.level == "Mandatory"}
    assert mandatory <= set(COLUMNS), sorted(mandatory - set(COLUMNS))
    custom = [c for c in COLUMNS if c not in SPEC_1_1]
    assert custom and all(c.startswith("x_") for c in custom), custom
    assert len(set(COLUMNS)) == len(COLUMNS)


@pytest.mark.parametrize(("name", "rate", "currency"), SAMPLES)
def test_every_row_keeps_the_column_rules(name, rate, currency):
    rows = _export(name, rate, currency)
    assert {r["x_SourceLine"] for r in rows}  # the export is not empty
    assert {r["ServiceCategory"] for r in rows} == {"Compute", "Networking", "Other"}
    for row in rows:
        where = f"line {row['x_SourceLine']}"
        for column, value in row.items():
            spec = SPEC_1_1.get(column)
            if spec is None:
                continue
            if _null(value):
                assert spec.nulls, f"{where}: {column} does not allow nulls"
                continue
            if spec.allowed:
                assert value in spec.allowed, f"{where}: {column} {value!r} is no allowed value"
            if spec.type == "Decimal":
                assert NUMBER.fullmatch(value), f"{where}: {column} {value!r} is no FOCUS number"
            if spec.type == "Date/Time":
                assert MOMENT.fullmatch(value), f"{where}: {column} {value!r} is no FOCUS date"
        assert CURRENCY.fullmatch(row["BillingCurrency"]), where


@pytest.mark.parametrize(("name", "rate", "currency"), SAMPLES)
def test_the_conditional_rules_between_the_columns_we_emit_hold(name, rate, currency):
    for row in _export(name, rate, currency):
        where = f"line {row['x_SourceLine']}"
        category, correction = row["ChargeCategory"], row["ChargeClass"] == "Correction"
        priced = category in ("Usage", "Purchase") and not correction
        # pricingquantity.md, pricingunit.md, contractedunitprice.md: "MUST NOT be null when
        # ChargeClass is not 'Correction' and ChargeCategory is 'Usage' or 'Purchase'".
        if priced:
            for column in ("PricingQuantity", "PricingUnit", "ContractedUnitPrice"):
                assert not _null(row[column]), f"{where}: {column} is null on a {category} row"
        # consumedquantity.md, consumedunit.md: not null (and positive) on usage, else null.
        usage = category == "Usage" and not correction
        for column in ("ConsumedQuantity", "ConsumedUnit"):
            assert _null(row[column]) != usage, f"{where}: {column} on a {category} row"
        if usage:
            assert Decimal(row["ConsumedQuantity"]) > 0, where
        # chargefrequency.md: "When ChargeCategory is 'Purchase', ChargeFrequency MUST NOT be
        # 'Usage-Based'".
        if category == "Purchase":
            assert row["ChargeFrequency"] != "Usage-Based", where
        # contractedcost.md: "multiplying the ContractedUnitPrice by PricingQuantity MUST
        # produce the ContractedCost"; contractedunitprice.md: non-negative.
        price, quantity = Decimal(row["ContractedUnitPrice"]), Decimal(row["PricingQuantity"])
        assert price >= 0 and price * quantity == Decimal(row["ContractedCost"]), where
        # billingperiodstart.md / chargeperiodend.md: the start is inclusive, the end exclusive;
        # a charge lies within its billing period.
        assert row["BillingPeriodStart"] <= row["ChargePeriodStart"] < row["BillingPeriodEnd"]
        assert row["ChargePeriodStart"] <= row["ChargePeriodEnd"], where
