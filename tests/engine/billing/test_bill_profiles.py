"""Each sample bill (tests/data/billing, sources in its README) is recognised as its profile, its
columns are proposed right, its lines come out in GPU-hours at a rate per GPU-hour with their
amount, currency and charge class, and reconciling it against a small contract finds exactly the
three planted errors: a line before the clock started, a node billed while out, a wrong rate."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from engine.billing import Contract, Outage, reconcile
from engine.billing.bill import Bill, read_bill
from engine.billing.lines import EGRESS, FEE, GPU, gpu_hours
from engine.billing.nodes import match_nodes

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
M = 1_000_000


def _at(day: int, hour: int = 0) -> int:
    return int(datetime(2026, 3, day, hour, tzinfo=UTC).timestamp())


def _bill(name: str) -> Bill:
    return read_bill((DATA / name).read_bytes(), name=name)


# file, profile, rate per GPU-hour, currency, GPU-hours per line, amount per line
HOURLY = [
    ("aws_cur2.csv", "aws-cur2", "12.29", "USD", 8, "98.32"),
    ("focus_1_1.csv", "focus", "10", "USD", 8, "80"),
    ("gcp_billing.csv", "gcp", "11.06", "USD", 8, "88.48"),
    ("oci_cost_report.csv", "oci", "10", "USD", 8, "80"),
    ("neocloud_invoice.csv", "neocloud", "2.5", "USD", 8, "20"),
    ("eu_semicolon.csv", "neocloud", "2.1", "EUR", 8, "16.8"),
]
AZURE = ("azure_cost_details.csv", "azure", "12.29", "USD", 192, "2359.68")

COLUMNS = {
    "aws_cur2.csv": {
        "period_start": "line_item_usage_start_date",
        "period_end": "line_item_usage_end_date",
        "node": "line_item_resource_id",
        "instance_type": "product_instance_type",
        "quantity": "line_item_usage_amount",
        "unit": "pricing_unit",
        "rate": "line_item_unblended_rate",
        "amount": "line_item_unblended_cost",
        "currency": "line_item_currency_code",
        "charge": "line_item_line_item_type",
        "meter": "line_item_usage_type",
        "service": "line_item_product_code",
    },
    "focus_1_1.csv": {
        "period_start": "ChargePeriodStart",
        "period_end": "ChargePeriodEnd",
        "node": "ResourceId",
        "details": "SkuPriceDetails",
        "quantity": "PricingQuantity",
        "unit": "PricingUnit",
        "rate": "ContractedUnitPrice",
        "amount": "BilledCost",
        "currency": "BillingCurrency",
        "charge": "ChargeCategory",
        "charge_class": "ChargeClass",
        "meter": "ChargeDescription",
        "service": "ServiceCategory",
        "effective": "EffectiveCost",
        "provider": "ProviderName",
    },
    "gcp_billing.csv": {
        "period_start": "Usage start date",
        "period_end": "Usage end date",
        "node": "Resource name",
        "quantity": "Usage amount",
        "unit": "Usage unit",
        "amount": "Unrounded Cost ($)",
        "currency": "Currency",
        "charge": "Cost type",
        "credit": "Credit type",
        "meter": "SKU description",
        "service": "Service description",
    },
    "azure_cost_details.csv": {
        "period_start": "Date",
        "node": "ResourceId",
        "meter": "MeterName",
        "service": "MeterCategory",
        "quantity": "Quantity",
        "unit": "UnitOfMeasure",
        "rate": "EffectivePrice",
        "amount": "CostInBillingCurrency",
        "currency": "BillingCurrency",
        "charge": "ChargeType",
        "exchange": "ExchangeRatePricingToBilling",
        "pricing_model": "PricingModel",
    },
    "neocloud_invoice.csv": {
        "period_start": "Start (UTC)",
        "period_end": "End (UTC)",
        "node": "Hostname",
        "instance_type": "Instance type",
        "gpus": "GPUs",
        "quantity": "Hours",
        "rate": "Rate ($/GPU-hr)",
        "amount": "Amount ($)",
        "charge": "Type",
        "meter": "Description",
    },
    "eu_semicolon.csv": {
        "period_start": "Start",
        "period_end": "End",
        "node": "Host",
        "instance_type": "Instance type",
        "gpus": "GPUs",
        "quantity": "Hours",
        "rate": "Rate (€/GPU-h)",
        "amount": "Amount (€)",
        "charge": "Type",
    },
}


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_each_profile_is_recognised_with_its_columns(name):
    bill = _bill(name)
    profile = next(p for f, p, *_ in [*HOURLY, AZURE] if f == name)
    assert bill.detected.profile == bill.proposal.profile.name == profile
    assert bill.proposal.columns == COLUMNS[name]
    assert bill.errors == [] and bill.questions == []


@pytest.mark.parametrize(
    ("name", "profile", "rate", "currency", "hours", "amount"), [*HOURLY, AZURE]
)
def test_gpu_lines_in_gpu_hours_at_a_rate_per_gpu_hour(
    name, profile, rate, currency, hours, amount
):
    bill = _bill(name)
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert len(gpu) == (7 if profile == "azure" else 9)
    usual = gpu[1]  # every line but the planted wrong rate is billed like this one
    assert gpu_hours(usual.quantity) == hours
    assert Decimal(usual.rate) / M == Decimal(rate)
    assert Decimal(usual.amount) / M == Decimal(amount)
    assert usual.gpus == 8 and usual.currency == currency and usual.charge == "usage"
    assert {u.currency for u in bill.lines + bill.other} == {currency}


def test_instance_hours_become_gpu_hours_by_the_catalogue():
    aws, azure, focus = (
        _bill("aws_cur2.csv"),
        _bill("azure_cost_details.csv"),
        _bill("focus_1_1.csv"),
    )
    assert {u.instance_type for u in aws.lines if u.kind == GPU} == {"p5.48xlarge"}
    assert {u.instance_type for u in azure.lines if u.kind == GPU} == {"ND96isr H100 v5"}
    assert {u.instance_type for u in focus.lines if u.kind == GPU} == {"BM.GPU.H100.8"}
    # 1 instance-hour at 98.32 is 8 GPU-hours at 12.29; a daily Azure line covers its whole day
    day = azure.lines[0]
    assert (day.start, day.end) == (_at(1), _at(2))  # 03/01/2026 read month-first: 1 March


NON_USAGE = {
    "aws_cur2.csv": {"tax": 70.29, "credit": -100.0},
    "focus_1_1.csv": {"tax": 59.5, "credit": -50.0, "correction": -80.0},
    "gcp_billing.csv": {"tax": 71.2, "credit": -40.0},
    "azure_cost_details.csv": {"tax": 1520.4, "refund": -196.64},
    "neocloud_invoice.csv": {"tax": 52.94, "credit": -40.0},
    "eu_semicolon.csv": {"tax": 296.44, "credit": -30.0},
}
EXTRAS = {
    "aws_cur2.csv": {EGRESS: 90.0},
    "focus_1_1.csv": {EGRESS: 4.25},
    "gcp_billing.csv": {EGRESS: 42.5},
    "azure_cost_details.csv": {EGRESS: 69.6},
    "neocloud_invoice.csv": {EGRESS: 120.0, FEE: 250.0},
    "eu_semicolon.csv": {EGRESS: 95.0, FEE: 1234.56},
}


@pytest.mark.parametrize("name", sorted(NON_USAGE))
def test_tax_credit_and_refund_are_classified_not_counted_as_gpu_usage(name):
    bill = _bill(name)
    other = {u.charge: u.amount / M for u in bill.other}
    assert other == NON_USAGE[name]
    assert all(u.quantity == 0 and u.kind not in (GPU, EGRESS) for u in bill.other)
    extras = {u.kind: u.amount / M for u in bill.lines if u.kind != GPU}
    assert extras == EXTRAS[name]  # egress and fees stay visible, as billed
    totals = bill.totals()
    assert totals["tax"] == NON_USAGE[name]["tax"] * M


def _reconciled(bill: Bill, contract: Contract, nodes: list[str]) -> list[tuple[int, str]]:
    match = match_nodes(billed=[u.node for u in bill.lines if u.kind == GPU], nodes=nodes)
    assert match.unmatched_billed == [] and match.unmatched_nodes == []
    lines = [replace(u, node=match.matched.get(u.node, u.node)) for u in bill.lines]
    result = reconcile(lines, contract)
    return sorted((d.line, d.rule) for d in result.differences)


def _contract(rate: str, outage: Outage, clock: int, currency: str = "USD") -> Contract:
    return Contract(
        currency=currency,
        clock_start=clock,
        term_end=int(datetime(2026, 6, 1, tzinfo=UTC).timestamp()),
        rate=int(Decimal(rate) * M),
        fees=2_000 * M,
        egress=500 * M,
        outages=[outage],
    )


@pytest.mark.parametrize(("name", "rate", "currency"), [(f, r, c) for f, _, r, c, *_ in HOURLY])
def test_reconciling_each_hourly_sample_finds_exactly_the_three_planted_errors(
    name, rate, currency
):
    outage = Outage(node="node-b", start=_at(1, 8), end=_at(1, 9), label="incident #1 (S1)")
    contract = _contract(rate, outage, clock=_at(1, 6), currency=currency)
    found = _reconciled(_bill(name), contract, ["node-a", "node-b"])
    assert found == [(2, "before-clock"), (8, "node-out"), (9, "rate")]


def test_reconciling_the_daily_azure_sample_finds_exactly_the_three_planted_errors():
    outage = Outage(node="nd-02", start=_at(3, 6), end=_at(3, 12), label="incident #2 (S1)")
    contract = _contract("12.29", outage, clock=_at(2))
    found = _reconciled(_bill("azure_cost_details.csv"), contract, ["nd-01", "nd-02"])
    assert found == [(2, "before-clock"), (6, "node-out"), (7, "rate")]


# The FOCUS 1.1 columns as the specification names them (https://focus.finops.org/focus-
# specification/v1-1/); the sample uses no other. (focus-validator, the FinOps Foundation's
# checker, pins numpy<2, pandas, pyarrow and pandera 0.17, too heavy for this test suite.)
FOCUS_1_1 = frozenset(
    {
        "AvailabilityZone",
        "BilledCost",
        "BillingAccountId",
        "BillingAccountName",
        "BillingCurrency",
        "BillingPeriodEnd",
        "BillingPeriodStart",
        "CapacityReservationId",
        "CapacityReservationStatus",
        "ChargeCategory",
        "ChargeClass",
        "ChargeDescription",
        "ChargeFrequency",
        "ChargePeriodEnd",
        "ChargePeriodStart",
        "CommitmentDiscountCategory",
        "CommitmentDiscountId",
        "CommitmentDiscountName",
        "CommitmentDiscountQuantity",
        "CommitmentDiscountStatus",
        "CommitmentDiscountType",
        "CommitmentDiscountUnit",
        "ConsumedQuantity",
        "ConsumedUnit",
        "ContractedCost",
        "ContractedUnitPrice",
        "EffectiveCost",
        "InvoiceIssuerName",
        "ListCost",
        "ListUnitPrice",
        "PricingCategory",
        "PricingQuantity",
        "PricingUnit",
        "ProviderName",
        "PublisherName",
        "RegionId",
        "RegionName",
        "ResourceId",
        "ResourceName",
        "ResourceType",
        "ServiceCategory",
        "ServiceName",
        "ServiceSubcategory",
        "SkuId",
        "SkuMeter",
        "SkuPriceDetails",
        "SkuPriceId",
        "SubAccountId",
        "SubAccountName",
        "Tags",
    }
)


def test_the_focus_sample_uses_only_focus_columns_and_values():
    bill = _bill("focus_1_1.csv")
    headers = (DATA / "focus_1_1.csv").read_text().splitlines()[0].split(",")
    assert set(headers) <= FOCUS_1_1
    text = (DATA / "focus_1_1.csv").read_text()
    for category in ("Usage", "Tax", "Credit"):
        assert f",{category}," in text  # ChargeCategory values as the spec spells them
    assert ",Correction," in text and bill.detected.profile == "focus"


def test_an_oci_cost_report_lists_its_correction_apart_and_keeps_egress_and_storage_visible():
    bill = _bill("oci_cost_report.csv")
    assert bill.proposal.profile.name == "oci"
    assert [(u.line, u.charge, u.amount / M) for u in bill.other] == [(13, "correction", -80.0)]
    assert {u.kind: u.amount / M for u in bill.lines if u.kind != GPU} == {
        EGRESS: 4.25,  # "Outbound Data Transfer Zone 1" leaves the region
        FEE: 0.0017,  # a boot volume's storage
    }
    assert {u.instance_type for u in bill.lines if u.kind == GPU} == {"H100"}
