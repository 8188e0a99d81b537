"""AWS bills name what each line meters in its usage type, and two of them are easy to misfile:
a NAT gateway's hours (`USE1-NatGateway-Hours`) and the data it processed
(`USE1-NatGateway-Bytes`) are network fees, never egress, in the Cost and Usage Report and in the
FOCUS export alike; and SageMaker bills GPU instances under its own usage types
(`USE1-Cluster:ml.p5.48xlarge` for a HyperPod node, `USE1-Train:ml.p4d.24xlarge` for a training
job), which are instance-hours × the instance's GPUs, priced and reconciled like EC2's p5 hours."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.billing import Contract, Outage, reconcile
from engine.billing.bill import Bill, read_bill
from engine.billing.lines import EGRESS, FEE, GPU, gpu_hours

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
M = 1_000_000
CUR = "aws_cur2_sagemaker.csv"
HYPERPOD = "arn:aws:sagemaker:us-east-1:444455556666:cluster/k2f8d4vz1x3m"
TRAINING = "arn:aws:sagemaker:us-east-1:444455556666:training-job/eval-p4d-0007"


def _at(day: int, hour: int = 0) -> int:
    return int(datetime(2026, 3, day, hour, tzinfo=UTC).timestamp())


def _read(name: str, data: bytes | None = None, *, node_gpus: int | None = None) -> Bill:
    data = (DATA / name).read_bytes() if data is None else data
    return read_bill(data, name=name, node_gpus=node_gpus)


def _nat(bill: Bill) -> list[tuple[str, int | None]]:
    return [(u.kind, u.amount) for u in bill.lines if "natgateway" in u.node]


# The product column as AWS's price list writes a HyperPod node ("ml.p5.48xlarge-Cluster"), as
# a training job's, and empty (most SageMaker rows of the price list leave it so): the usage
# type names the instance either way.
@pytest.mark.parametrize("product", ["ml.p5.48xlarge-Cluster", "ml.p5.48xlarge", ""])
def test_sagemaker_instance_hours_in_a_cur_are_gpu_hours_of_the_instance(product: str) -> None:
    data = (DATA / CUR).read_bytes().replace(b"ml.p5.48xlarge-Cluster", product.encode())
    bill = _read(CUR, data)
    assert bill.proposal.profile.name == "aws-cur2"
    assert bill.errors == [] and bill.questions == []
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [(u.line, u.instance_type, u.gpus, gpu_hours(u.quantity)) for u in gpu] == [
        *((n, "ml.p5.48xlarge", 8, 8) for n in range(2, 7)),
        (8, "ml.p4d.24xlarge", 8, 8),
    ]
    # 98.32 per HyperPod node-hour is 12.29 per GPU-hour, as EC2's p5.48xlarge; the training
    # job's 37.688 per ml.p4d.24xlarge hour is 4.711 per A100-hour.
    assert [u.rate for u in gpu] == [12_290_000] * 4 + [12_900_000, 4_711_000]
    assert all(u.end - u.start == 3600 and u.charge == "usage" for u in gpu)


def test_a_sagemaker_instance_the_catalogue_does_not_know_is_asked_about_by_its_name() -> None:
    data = (DATA / CUR).read_bytes().replace(b"ml.p4d.24xlarge", b"ml.g6e.12xlarge")
    bill = _read(CUR, data)
    [question] = bill.questions
    assert (question.instance_type, question.lines) == ("ml.g6e.12xlarge", (8,))
    assert "How many GPUs does one 'ml.g6e.12xlarge' instance have?" in question.ask
    assert all(u.line != 8 for u in bill.lines)  # not priced until answered


def test_nat_gateway_hours_and_bytes_in_a_cur_are_fees_and_only_data_out_is_egress() -> None:
    bill = _read(CUR)
    assert _nat(bill) == [(FEE, 45_000), (FEE, 5_400_000)]
    assert [(u.line, u.amount) for u in bill.lines if u.kind == EGRESS] == [(11, 22_500_000)]
    # The HyperPod cluster's EBS volume (`Cluster:VolumeUsage.gp2`, GB-Mo) is storage: a fee.
    assert bill.totals() == {
        "gpu": (98_320_000 * 4 + 103_200_000 + 37_688_000),
        "fee": 376_320 + 45_000 + 5_400_000,
        "egress": 22_500_000,
        "tax": 48_810_000,
    }


def test_a_hyperpod_bill_reconciles_like_ec2_instance_hours() -> None:
    """One HyperPod p5 node bought as the allocation's node: billed before the clock, while
    out, and at a wrong rate, each found; a training job on another instance is no node of the
    allocation; the NAT gateway stays within the fees bid and out of the egress."""
    bill = _read(CUR)
    lines = [replace(u, node="hp-node-1") if u.node == HYPERPOD else u for u in bill.lines]
    contract = Contract(
        clock_start=_at(1, 6),
        term_end=int(datetime(2026, 6, 1, tzinfo=UTC).timestamp()),
        rate=12_290_000,
        fees=2_000 * M,
        egress=500 * M,
        outages=[Outage(node="hp-node-1", start=_at(1, 8), end=_at(1, 9), label="incident #1")],
        nodes=("hp-node-1",),
        node_gpus=8,
    )
    result = reconcile(lines, contract)
    assert sorted((d.line, d.rule) for d in result.differences) == [
        (2, "before-clock"),
        (5, "node-out"),
        (6, "rate"),
        (8, "rate"),
        (8, "unknown-node"),
    ]
    assert result.billed[EGRESS] == result.allowed[EGRESS] == 22_500_000
    assert result.billed[FEE] == result.allowed[FEE] == 5_821_320
    # The accepted node-hours (06:00-08:00, 09:00-10:00) at the agreed rate, none of the
    # training job's.
    assert result.allowed[GPU] == 3 * 98_320_000


def test_nat_gateway_lines_of_a_legacy_cur_are_fees() -> None:
    bill = _read("aws_cur_legacy.csv")
    assert _nat(bill) == [(FEE, 45_000), (FEE, 900_000)]
    assert [u.amount for u in bill.lines if u.kind == EGRESS] == [1_125_000]


FOCUS = "focus_aws_export.csv"


def test_nat_gateway_lines_of_an_aws_focus_export_are_fees_not_egress() -> None:
    bill = _read(FOCUS)
    assert _nat(bill) == [(FEE, 50_000), (FEE, 900_000)]
    assert [u.amount for u in bill.lines if u.kind == EGRESS] == [1_130_000]


def test_a_nat_gateway_hour_filed_under_ec2_compute_is_never_a_gpu_hour() -> None:
    """The gateway is billed under AmazonEC2: an export that files it in the Compute category
    must still not read its hour as an instance's, not even with the contract's node size
    known (which prices lines that name no instance type)."""
    data = (DATA / FOCUS).read_bytes()
    data = data.replace(
        b"Networking,Amazon Virtual Private Cloud", b"Compute,Amazon Elastic Compute Cloud"
    )
    bill = _read(FOCUS, data, node_gpus=8)
    assert _nat(bill) == [(FEE, 50_000), (FEE, 900_000)]
    assert bill.questions == []


def test_a_hyperpod_node_hour_in_an_aws_focus_export_is_gpu_time() -> None:
    bill = _read(FOCUS)
    [node] = [u for u in bill.lines if u.node == HYPERPOD]
    assert (node.kind, node.instance_type, node.gpus, node.rate) == (
        GPU, "ml.p5.48xlarge", 8, 12_290_000)  # fmt: skip


def test_focus_1_2_names_the_usage_type_in_sku_meter() -> None:
    """AWS's FOCUS 1.2 export drops x_UsageType: the usage type is in SkuMeter
    (https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-focus-1-2-migrating.html)."""
    data = (DATA / FOCUS).read_bytes().replace(b",x_UsageType", b",SkuMeter")
    bill = _read(FOCUS, data)
    assert bill.proposal.columns["meter"] == "SkuMeter"
    assert bill.errors == [] and bill.questions == []
    assert [(u.instance_type, u.gpus) for u in bill.lines if u.kind == GPU] == [
        ("p5.48xlarge", 8), ("p5.48xlarge", 8), ("ml.p5.48xlarge", 8)]  # fmt: skip
    assert _nat(bill) == [(FEE, 50_000), (FEE, 900_000)]
    assert [u.amount for u in bill.lines if u.kind == EGRESS] == [1_130_000]
