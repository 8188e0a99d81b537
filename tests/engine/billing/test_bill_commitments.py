"""Usage a commitment bought ahead covers, priced at what it really cost.

AWS bills a reserved instance's covered hours at 0.00 (`DiscountedUsage`) and its monthly fee on
an `RIFee` line; a savings plan's covered hours at their on-demand cost
(`SavingsPlanCoveredUsage`), negated on a `SavingsPlanNegation` line, and its fee on a
`SavingsPlanRecurringFee` line. Each covered line states its share of the commitment in its own
effective-cost column. FOCUS writes the same as `CommitmentDiscountStatus` "Used" with
`EffectiveCost`, and the commitment's unused part as "Unused". The hours are priced at their
effective cost; the fees are purchases, listed apart, so the hours are not billed twice."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.billing import Contract, reconcile
from engine.billing.bill import Bill, read_bill
from engine.billing.lines import GPU, gpu_hours
from tests.engine.billing.bill_rows import csv_bytes, export_rows

M = 1_000_000
RATE = 3_932_500  # the agreed 3.9325 a GPU-hour: 31.46 an 8-GPU instance-hour
RI = "arn:aws:ec2:us-east-1:444455556666:reserved-instances/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab"
SP = "arn:aws:savingsplans::444455556666:savingsplan/5f2c1e0a-3b4d-4c5e-8f90-abcdef012345"


def _read(header: list[str], rows: list[dict[str, str]]) -> Bill:
    bill = read_bill(csv_bytes(header, rows), name="bill.csv")
    assert bill.errors == [] and bill.questions == []
    return bill


def _contract() -> Contract:
    return Contract(
        clock_start=int(datetime(2026, 3, 1, tzinfo=UTC).timestamp()),
        term_end=int(datetime(2026, 4, 1, tzinfo=UTC).timestamp()),
        rate=RATE,
        fees=0,
        egress=0,
        nodes=("i-0a1b2c3d4e5f60001", "i-0a1b2c3d4e5f60002"),
        node_gpus=8,
    )


def _cur() -> Bill:
    header, rows = export_rows("aws_cur2.csv")
    header += ["reservation_effective_cost", "savings_plan_savings_plan_effective_cost"]
    hour = rows[0] | {
        "reservation_effective_cost": "",
        "savings_plan_savings_plan_effective_cost": "",
    }
    month = {
        "line_item_usage_start_date": "2026-03-01T00:00:00Z",
        "line_item_usage_end_date": "2026-04-01T00:00:00Z",
        "line_item_resource_id": "",
        "product_instance_type": "",
        "pricing_unit": "",
    }
    lines = [
        hour | month | {  # line 2: the reserved instance's fee for the month
            "line_item_line_item_type": "RIFee", "line_item_usage_type": "HeavyUsage:p5.48xlarge",
            "line_item_usage_amount": "744", "line_item_unblended_rate": "31.46",
            "line_item_unblended_cost": "23406.24", "line_item_resource_id": RI,
        },
        hour | {  # line 3: an hour the reserved instance covers, billed 0.00
            "line_item_line_item_type": "DiscountedUsage", "line_item_unblended_rate": "0.0",
            "line_item_unblended_cost": "0.0", "reservation_effective_cost": "31.46",
        },
        hour | {  # line 4: an hour the savings plan covers, billed on demand
            "line_item_line_item_type": "SavingsPlanCoveredUsage",
            "line_item_resource_id": "i-0a1b2c3d4e5f60002",
            "savings_plan_savings_plan_effective_cost": "31.46",
        },
        hour | {  # line 5: the on-demand cost of line 4, taken back
            "line_item_line_item_type": "SavingsPlanNegation",
            "line_item_resource_id": "i-0a1b2c3d4e5f60002",
            "line_item_unblended_cost": "-98.32",
        },
        hour | month | {  # line 6: the savings plan's fee for the month
            "line_item_line_item_type": "SavingsPlanRecurringFee",
            "line_item_usage_type": "ComputeSP:1yrNoUpfront",
            "line_item_product_code": "ComputeSavingsPlans",
            "line_item_unblended_cost": "23406.24", "line_item_resource_id": SP,
        },
    ]  # fmt: skip
    return _read(header, lines)


def test_covered_hours_in_a_cur_are_priced_at_their_effective_cost() -> None:
    bill = _cur()
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [(u.line, u.gpus, gpu_hours(u.quantity), u.rate, u.amount) for u in gpu] == [
        (3, 8, 8, RATE, 31_460_000),
        (4, 8, 8, RATE, 31_460_000),
    ]
    result = reconcile(bill.lines, _contract())
    assert result.differences == []  # neither 0.00 nor the on-demand 98.32 is a rate difference
    assert result.billed[GPU] == result.allowed[GPU] == 62_920_000


def test_the_commitments_fees_are_purchases_listed_apart_and_never_an_unbid_fee() -> None:
    bill = _cur()
    assert [(u.line, u.charge, u.amount) for u in bill.other] == [
        (2, "purchase", 23_406_240_000),
        (5, "discount", -98_320_000),
        (6, "purchase", 23_406_240_000),
    ]
    assert reconcile(bill.lines, _contract()).billed_total == 62_920_000


def test_a_cur_without_the_effective_cost_columns_bills_covered_hours_as_written() -> None:
    header, rows = export_rows("aws_cur2.csv")
    covered = rows[0] | {
        "line_item_line_item_type": "DiscountedUsage",
        "line_item_unblended_rate": "0.0",
        "line_item_unblended_cost": "0.0",
    }
    (line,) = [u for u in _read(header, [covered]).lines if u.kind == GPU]
    assert (line.rate, line.amount) == (0, 0)
    # What the hour cost is not in the file: the rate finding names the commitment and the
    # column that would say, rather than calling 0.00 a rate the provider chose.
    (difference,) = reconcile([line], _contract()).differences
    assert difference.message == (
        "covered by a reserved instance and billed at 0.00 per GPU-hour, which is not what the "
        "hour cost: the file states no effective cost for it, so it cannot be compared with the "
        "agreed 3.9325. Export the CUR with reservation_effective_cost to compare what the hour "
        "cost."
    )


def test_a_focus_row_a_commitment_covered_is_priced_at_its_effective_cost() -> None:
    header, rows = export_rows("focus_aws_export.csv")
    hour = rows[0]
    used = hour | {
        "BilledCost": "0",
        "EffectiveCost": "31.46",
        "CommitmentDiscountId": RI,
        "CommitmentDiscountStatus": "Used",
        "CommitmentDiscountType": "Reserved Instance",
        "CommitmentDiscountCategory": "Usage",
    }
    unused = used | {
        "ResourceId": "",
        "EffectiveCost": "62.92",
        "CommitmentDiscountStatus": "Unused",
    }
    bill = _read(header, [used, unused])
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [(u.line, u.rate, u.amount) for u in gpu] == [(2, RATE, 31_460_000)]
    assert [(u.line, u.charge, u.amount) for u in bill.other] == [(3, "purchase", 0)]
    assert reconcile(bill.lines, _contract()).differences == []


def test_azures_unused_reservation_is_a_purchase_and_covered_hours_bill_as_amortized() -> None:
    header, rows = export_rows("azure_cost_details.csv")
    covered = rows[0] | {  # the amortized export: the hour at its share of the reservation
        "PricingModel": "Reservation",
        "Quantity": "1",
        "EffectivePrice": "31.46",
        "CostInBillingCurrency": "31.46",
    }
    unused = covered | {"ChargeType": "UnusedReservation", "CostInBillingCurrency": "62.92"}
    bill = _read(header, [covered, unused])
    assert [(u.line, u.kind, u.amount) for u in bill.lines] == [(2, GPU, 31_460_000)]
    assert [(u.line, u.charge, u.amount) for u in bill.other] == [(3, "purchase", 62_920_000)]


def test_azures_actual_cost_export_bills_covered_hours_at_zero_and_says_which_to_upload() -> None:
    header, rows = export_rows("azure_cost_details.csv")
    covered = rows[0] | {  # the actual-cost export: the reservation's price is a purchase row
        "PricingModel": "Reservation",
        "Quantity": "1",
        "EffectivePrice": "0",
        "CostInBillingCurrency": "0",
    }
    (line,) = _read(header, [covered]).lines
    assert (line.kind, line.amount) == (GPU, 0)
    (difference,) = [d for d in reconcile([line], _contract()).differences if d.rule == "rate"]
    assert difference.message.startswith("covered by an Azure reservation and billed at 0.00")
    assert difference.message.endswith(
        "The amortized cost export bills each hour its share of the reservation: upload that "
        "export to compare what the hour cost."
    )
