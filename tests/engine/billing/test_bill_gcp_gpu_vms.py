"""Compute Engine bills a GPU VM in parts (https://cloud.google.com/compute/gpus-pricing): each
attached GPU by the GPU-hour on its own SKU ("Nvidia H100 80GB GPU running in Americas" for A3
High, "Nvidia H100 80GB Plus GPU …" for A3 Mega, "H200 141GB GPU …" for A3 Ultra, "A4 Nvidia
B200 (1 gpu slice) …" for A4), and the VM's cores and memory on the machine series' SKUs ("A3
Instance Core running in Americas", "A3 Instance Ram …"). The GPU lines are the contract's
GPU-hours; cores and memory are fees. A committed use discount bills its own fee ("Commitment
v1: Nvidia H100 80GB GPU running in Americas for 1 Year", a purchase, never GPU-hours a second
time) and comes back on the GPU lines as COMMITTED_USAGE_DISCOUNT credits. The sample,
`tests/data/billing/gcp_a3_billing.csv`, is the cost table's CSV layout."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.billing import Contract, reconcile
from engine.billing.bill import Bill, read_bill
from engine.billing.lines import EGRESS, FEE, GPU, gpu_hours

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
A3 = "gcp_a3_billing.csv"
M = 1_000_000


def _read(data: bytes | None = None) -> Bill:
    bill = read_bill((DATA / A3).read_bytes() if data is None else data, name=A3)
    assert bill.proposal.profile.name == "gcp"
    assert bill.errors == [] and bill.questions == []
    return bill


def _gpu(bill: Bill) -> list[tuple[int, str, int, object, int | None]]:
    return [
        (u.line, u.node, u.gpus, gpu_hours(u.quantity), u.rate) for u in bill.lines if u.kind == GPU
    ]


def test_an_a3_vm_bills_its_gpus_as_gpu_hours_and_its_cores_and_memory_as_fees() -> None:
    bill = _read()
    # 8 GPU-hours a node-hour, at 88.48 / 8 = 11.06 per GPU-hour: no GPU count column needed.
    assert _gpu(bill) == [
        (2, "a3-high-0", 8, 8, 11_060_000),
        (5, "a3-high-0", 8, 8, 11_060_000),
        (8, "a3-mega-0", 8, 8, 11_060_000),
    ]
    fees = [(u.line, u.amount) for u in bill.lines if u.kind == FEE]
    assert fees == [
        (3, 6_104_800), (4, 4_792_320), (6, 6_104_800), (7, 4_792_320),
        (9, 6_104_800), (10, 4_792_320),
        (13, 1_200_000),  # Network Inter Zone Data Transfer Out: inside the region
    ]  # fmt: skip
    assert [(u.line, u.amount) for u in bill.lines if u.kind == EGRESS] == [(14, 42_500_000)]
    # The commitment's fee is a purchase and the discount a credit: listed apart, not priced.
    assert [(u.line, u.charge, u.amount) for u in bill.other] == [
        (11, "credit", -70_780_000),
        (12, "purchase", 113_250_000),
        (15, "tax", 71_200_000),
    ]


@pytest.mark.parametrize(
    "sku",
    [
        "H200 141GB GPU running in Americas",  # A3 Ultra
        "A4 Nvidia B200 (1 gpu slice) running in Americas",  # A4
        "Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in Americas",
    ],
)
def test_every_gpu_vm_series_bills_its_gpus_by_the_gpu_hour(sku: str) -> None:
    data = (
        (DATA / A3)
        .read_bytes()
        .replace(b"Nvidia H100 80GB Plus GPU running in Americas", sku.encode())
    )
    assert [(node, gpus, hours) for _l, node, gpus, hours, _r in _gpu(_read(data))][-1] == (
        "a3-mega-0", 8, 8)  # fmt: skip


def test_an_a3_bill_reconciles_its_gpu_hours_at_the_agreed_rate_and_the_vm_parts_as_fees() -> None:
    contract = Contract(
        clock_start=int(datetime(2026, 3, 1, 6, tzinfo=UTC).timestamp()),
        term_end=int(datetime(2026, 6, 1, tzinfo=UTC).timestamp()),
        rate=11_060_000,
        fees=40 * M,
        egress=50 * M,
        nodes=("a3-high-0", "a3-mega-0"),
        node_gpus=8,
    )
    result = reconcile(_read().lines, contract)
    assert result.differences == []
    assert result.allowed[GPU] == result.billed[GPU] == 3 * 88_480_000
    assert result.allowed[FEE] == result.billed[FEE] == 3 * (6_104_800 + 4_792_320) + 1_200_000
    assert result.allowed[EGRESS] == result.billed[EGRESS] == 42_500_000
    # No fees bid: the VM's cores and memory are billed where the bid declared none, and said so.
    bare = reconcile(_read().lines, Contract(**{**contract.__dict__, "fees": 0}))
    assert {d.rule for d in bare.differences} == {"fees-not-bid"}


def test_a_bigquery_export_reads_gpu_seconds_or_pricing_hours_alike() -> None:
    """The standard usage cost table in BigQuery, as a query selects it: usage.amount in
    usage.unit (a GPU's seconds), and usage.amount_in_pricing_units in usage.pricing_unit
    (hours) when the query keeps them too."""
    head = "service.description,sku.description,usage_start_time,usage_end_time,resource.name"
    row = (
        "Compute Engine,Nvidia H100 80GB GPU running in Americas,"
        "2026-03-01 06:00:00 UTC,2026-03-01 07:00:00 UTC,a3-high-0"
    )
    usage = (
        ("usage.amount,usage.unit", "28800,seconds"),
        (
            "usage.amount,usage.unit,usage.amount_in_pricing_units,usage.pricing_unit",
            "28800,seconds,8,hour",
        ),
    )
    for names, values in usage:
        text = f"{head},{names},cost,currency,cost_type\n{row},{values},88.48,USD,regular\n"
        bill = read_bill(text.encode(), name="bq.csv")
        assert bill.proposal.profile.name == "gcp", names
        assert bill.errors == []
        assert _gpu(bill) == [(2, "a3-high-0", 8, 8, 11_060_000)], names


def test_an_invoices_cost_table_reads_its_usage_and_stops_at_its_total() -> None:
    """The console's cost table of an invoice: the invoice's own lines above the header, one
    row per SKU for the month, Cost type "Usage" (credits too, named by Credit type), amounts
    with thousands separators, and footer rows whose first cells are empty: "Rounding error"
    and the "Total" that ends the table. Its dates are bare dates, the end one included."""
    name = "gcp_cost_table_invoice.csv"
    bill = read_bill((DATA / name).read_bytes(), name=name, node_gpus=8)
    assert bill.proposal.profile.name == "gcp" and bill.detected.header_row == 9
    assert bill.errors == [] and bill.questions == []
    assert bill.detected.total_rows == (15,)
    [gpu] = [u for u in bill.lines if u.kind == GPU]
    assert (gpu.line, gpu_hours(gpu.quantity), gpu.rate) == (10, 1152, 11_060_000)
    # "2026-03-01" to "2026-03-31": the whole month, 31 March included (744 hours, not 720).
    march, april = (int(datetime(2026, m, 1, tzinfo=UTC).timestamp()) for m in (3, 4))
    assert (gpu.start, gpu.end) == (march, april)
    assert bill.totals() == {"gpu": 12_741_120_000, "fee": 879_091_200, "egress": 43_500_000,
                             "credit": -3_212_160_000, "adjustment": -10_000}  # fmt: skip
