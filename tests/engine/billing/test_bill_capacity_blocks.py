"""EC2 Capacity Blocks for ML are paid upfront, in one charge when the block is bought
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-pricing-billing.html),
under the usage type `USE2-CapacityBlockFee:p5.48xlarge` (Cost Explorer's record type
"Upfront", dated the block's first day). That charge buys the block's instance-hours ahead of
their use: it is a purchase, listed apart, never a fee against the bid's fees and never GPU
time a second time. The instances running in the block bill their hours on their own lines
(assumed here to carry `BoxUsage:p5.48xlarge` at the Linux operating system's $0.00 an hour:
AWS documents the OS charge, not the usage type), which reconcile as instance-hours."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.billing import Contract, reconcile
from engine.billing.bill import Bill, read_bill
from engine.billing.lines import FEE, GPU, gpu_hours
from tests.engine.billing.bill_rows import csv_bytes, export_rows

BLOCK = "arn:aws:ec2:us-east-2:444455556666:capacity-reservation/cr-0a1b2c3d4e5f60718"
FEE_TYPE = "USE2-CapacityBlockFee:p5.48xlarge"
DESCRIPTION = "Capacity Block for ML p5.48xlarge, 1 instance, 24 hours"
M = 1_000_000


def _cur(fee_line_type: str = "Fee") -> Bill:
    """A 24-hour block of one p5.48xlarge bought for 755.14 (31.464 an instance-hour), and two
    of its hours run."""
    header, rows = export_rows("aws_cur2.csv")
    hour = rows[1]  # a p5.48xlarge instance-hour
    fee = hour | {
        "line_item_line_item_type": fee_line_type,
        "line_item_usage_start_date": "2026-03-01T11:30:00Z",
        "line_item_usage_end_date": "2026-03-02T11:30:00Z",
        "line_item_usage_type": FEE_TYPE,
        "line_item_operation": "PurchaseCapacityBlock",
        "line_item_resource_id": BLOCK,
        "line_item_usage_amount": "1.0",
        "line_item_unblended_rate": "755.136",
        "line_item_unblended_cost": "755.136",
        "line_item_blended_rate": "755.136",
        "line_item_blended_cost": "755.136",
        "line_item_line_item_description": DESCRIPTION,
        "product_region_code": "us-east-2",
        "pricing_unit": "",
        "pricing_term": "",
    }
    hours = [
        hour | {
            "line_item_usage_start_date": f"2026-03-01T{h:02d}:30:00Z",
            "line_item_usage_end_date": f"2026-03-01T{h + 1:02d}:30:00Z",
            "line_item_usage_type": "USE2-BoxUsage:p5.48xlarge",
            "line_item_unblended_rate": "0.0",
            "line_item_unblended_cost": "0.0",
            "line_item_blended_rate": "0.0",
            "line_item_blended_cost": "0.0",
            "line_item_line_item_description": "$0.00 per Linux p5.48xlarge Instance Hour",
            "product_region_code": "us-east-2",
        }
        for h in (11, 12)
    ]  # fmt: skip
    bill = read_bill(csv_bytes(header, [fee, *hours]), name="cur.csv")
    assert bill.proposal.profile.name == "aws-cur2"
    assert bill.errors == [] and bill.questions == []
    return bill


@pytest.mark.parametrize("line_type", ["Fee", "Usage"])
def test_a_capacity_block_fee_in_a_cur_is_a_purchase_not_a_fee(line_type: str) -> None:
    bill = _cur(line_type)
    assert [(u.line, u.charge, u.amount) for u in bill.other] == [(2, "purchase", 755_136_000)]
    assert [u for u in bill.lines if u.kind == FEE] == []
    assert bill.totals() == {"gpu": 0, "purchase": 755_136_000}


def test_the_hours_run_in_a_block_are_instance_hours_and_the_purchase_no_unbid_fee() -> None:
    bill = _cur()
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [(u.line, u.instance_type, u.gpus, gpu_hours(u.quantity)) for u in gpu] == [
        (3, "p5.48xlarge", 8, 8), (4, "p5.48xlarge", 8, 8)]  # fmt: skip
    contract = Contract(
        clock_start=int(datetime(2026, 3, 1, 11, 30, tzinfo=UTC).timestamp()),
        term_end=int(datetime(2026, 3, 2, 11, 30, tzinfo=UTC).timestamp()),
        rate=3_933_000,
        fees=0,
        egress=0,
        nodes=("i-0a1b2c3d4e5f60001",),
        node_gpus=8,
    )
    result = reconcile(bill.lines, contract)
    assert result.billed[FEE] == 0
    # The hours were paid for with the block: billed at 0.00 each, which the rate rule shows
    # beside the agreed rate, and no fee billed where the bid declared none.
    assert [(d.line, d.rule) for d in result.differences] == [(3, "rate"), (4, "rate")]
    assert result.billed[GPU] == 0


def test_a_capacity_block_in_an_aws_focus_export_is_a_purchase() -> None:
    header, rows = export_rows("focus_aws_export.csv")
    base = rows[0]
    block = base | {
        "BilledCost": "755.136",
        "ChargeDescription": DESCRIPTION,
        "ChargeFrequency": "One-Time",
        "ChargePeriodStart": "2026-03-01 11:30:00.000",
        "ChargePeriodEnd": "2026-03-02 11:30:00.000",
        "ResourceId": BLOCK,
        "x_Operation": "PurchaseCapacityBlock",
        "x_UsageType": FEE_TYPE,
    }
    for category in ("Purchase", "Usage"):
        bill = read_bill(csv_bytes(header, [block | {"ChargeCategory": category}]), name="f.csv")
        assert bill.errors == []
        assert [(u.charge, u.amount) for u in bill.other] == [("purchase", 755_136_000)]
        assert bill.lines == []


# CUR 2.0 exported with "Include capacity reservation data" names the reservation each line ran
# in (https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2-capacity-reservation.html).
CR_COLUMNS = [
    "capacity_reservation_capacity_reservation_arn",
    "capacity_reservation_capacity_reservation_status",
    "capacity_reservation_capacity_reservation_type",
]


def _cur_with_reservations(*rows: dict[str, str]) -> Bill:
    header, sample = export_rows("aws_cur2.csv")
    hour = sample[1] | dict.fromkeys(CR_COLUMNS, "")
    bill = read_bill(csv_bytes(header + CR_COLUMNS, [hour | r for r in rows]), name="cur.csv")
    assert bill.errors == [] and bill.questions == []
    return bill


def _in_block(status: str, kind: str = "EC2 Capacity Blocks for ML") -> dict[str, str]:
    return {
        "line_item_unblended_rate": "0.0",
        "line_item_unblended_cost": "0.0",
        "capacity_reservation_capacity_reservation_arn": BLOCK,
        "capacity_reservation_capacity_reservation_status": status,
        "capacity_reservation_capacity_reservation_type": kind,
    }


def test_an_hour_the_cur_names_as_a_blocks_says_it_was_paid_for_with_the_block() -> None:
    bill = _cur_with_reservations(_in_block("Used"))
    contract = Contract(
        clock_start=int(datetime(2026, 3, 1, tzinfo=UTC).timestamp()),
        term_end=int(datetime(2026, 3, 2, tzinfo=UTC).timestamp()),
        rate=3_933_000,
        fees=0,
        egress=0,
        nodes=("i-0a1b2c3d4e5f60001",),
        node_gpus=8,
    )
    (difference,) = reconcile(bill.lines, contract).differences
    assert difference.rule == "rate"
    assert difference.message.startswith(
        "covered by an EC2 Capacity Block for ML (paid upfront) and billed at 0.00 per GPU-hour"
    )
    assert "The block's fee is listed with the purchases" in difference.message


def test_an_on_demand_reservations_hour_is_not_called_a_block() -> None:
    (line,) = _cur_with_reservations(_in_block("Used", kind="ODCR")).lines
    assert line.kind == GPU and line.cover is None


@pytest.mark.parametrize(
    "unused",
    [
        _in_block("Unused", kind="ODCR")
        | {"line_item_unblended_cost": "98.32", "line_item_resource_id": BLOCK},
        # The same hour from a CUR exported without the capacity reservation columns.
        {"line_item_usage_type": "USE1-UnusedBox:p5.48xlarge", "line_item_resource_id": BLOCK},
    ],
)
def test_reserved_capacity_no_instance_ran_in_is_a_purchase_not_an_unknown_node(
    unused: dict[str, str],
) -> None:
    bill = _cur_with_reservations(unused)
    assert bill.lines == []
    assert [(u.charge, u.node) for u in bill.other] == [("purchase", BLOCK)]
