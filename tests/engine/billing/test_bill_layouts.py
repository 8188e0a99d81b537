"""Older layouts of the cloud exports that accounts still send: AWS's legacy Cost and Usage
Report (`lineItem/UsageStartDate`), Azure's pay-as-you-go usage details (`UsageDateTime`,
`UsageQuantity`, `PreTaxCost`, no `ChargeType`) and its Enterprise Agreement detail report.
Each is read by its cloud's profile, in GPU-hours at the rate per GPU-hour, with tax and credit
lines kept out of GPU usage."""

from __future__ import annotations

import bz2
import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.billing.bill import read_bill
from engine.billing.errors import UsageError
from engine.billing.lines import EGRESS, FEE, GPU

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
M = 1_000_000


def test_a_legacy_cost_and_usage_report_reads_as_the_aws_profile() -> None:
    bill = read_bill((DATA / "aws_cur_legacy.csv").read_bytes(), name="aws_cur_legacy.csv")
    assert bill.proposal.profile.name == "aws-cur2"
    assert bill.proposal.columns["period_start"] == "lineItem/UsageStartDate"
    assert bill.errors == [] and bill.questions == []
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [(u.node, u.instance_type, u.gpus) for u in gpu] == [
        ("i-0a1b2c3d4e5f60001", "p5.48xlarge", 8),
        ("i-0a1b2c3d4e5f60002", "p5.48xlarge", 8),
    ]
    assert {u.rate for u in gpu} == {12_290_000}  # 98.32 per instance-hour / 8 GPUs
    # A NAT gateway's hour and the data it processed are fees, not egress.
    assert [u.kind for u in bill.lines if u.kind != GPU] == [EGRESS, FEE, FEE]
    assert bill.totals() == {"gpu": 196_640_000, "egress": 1_125_000, "fee": 945_000,
                             "tax": 15_840_000, "credit": -50 * M}  # fmt: skip


def test_azure_pay_as_you_go_usage_details_read_as_the_azure_profile() -> None:
    bill = read_bill((DATA / "azure_usage_payg_legacy.csv").read_bytes(),
                     name="azure_usage_payg_legacy.csv")  # fmt: skip
    assert bill.proposal.profile.name == "azure"
    assert bill.errors == [] and bill.questions == []
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [u.node.rsplit("/", 1)[1] for u in gpu] == ["nd-01", "nd-02"]
    # A whole day of one ND96isr H100 v5 (8 GPUs): 192 GPU-hours at 98.32 / 8 per GPU-hour.
    assert {(u.end - u.start, u.rate, u.amount) for u in gpu} == {
        (86_400, 12_290_000, 2_359_680_000)
    }
    assert [u.kind for u in bill.lines if u.kind != GPU] == [EGRESS]
    assert bill.other == []  # no ChargeType column: every line of this layout is usage


def test_the_enterprise_agreements_detail_report_reads_as_the_azure_profile() -> None:
    """The EA detail report spells its columns with spaces ("Meter Category", "Consumed
    Quantity", "Instance ID") and writes its dates month-first: 03/02/2026 is 2 March."""
    bill = read_bill((DATA / "azure_ea_usage_detail.csv").read_bytes(),
                     name="azure_ea_usage_detail.csv")  # fmt: skip
    assert bill.proposal.profile.name == "azure" and bill.detected.date_order == "month-first"
    assert bill.errors == [] and bill.questions == [] and bill.other == []
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [u.node.rsplit("/", 1)[1] for u in gpu] == ["nd-01", "nd-02"]
    march_2 = int(datetime(2026, 3, 2, tzinfo=UTC).timestamp())
    assert {(u.start, u.end - u.start, u.gpus, u.rate) for u in gpu} == {
        (march_2, 86_400, 8, 12_290_000)
    }
    assert [(u.kind, u.amount) for u in bill.lines if u.kind != GPU] == [(EGRESS, 3_480_000)]


def test_focus_exports_of_aws_and_azure_name_the_instance_in_their_own_columns() -> None:
    """FOCUS has no instance-type column; AWS writes `x_UsageType` (`USE1-BoxUsage:p5.48xlarge`)
    and Azure `x_SkuMeterName` (`ND96isr H100 v5`), so neither needs a GPU-count question.
    Azure writes its times with seven decimals (`2026-03-02T00:00:00.0000000Z`)."""
    aws = read_bill((DATA / "focus_aws_export.csv").read_bytes(), name="focus_aws_export.csv")
    azure = read_bill((DATA / "focus_azure_export.csv").read_bytes(),
                      name="focus_azure_export.csv")  # fmt: skip
    for bill in (aws, azure):
        assert bill.proposal.profile.name == "focus"
        assert bill.questions == [] and bill.errors == []
    # A SageMaker HyperPod node (`USE1-Cluster:ml.p5.48xlarge`) is a p5.48xlarge's 8 GPUs too.
    assert [(u.instance_type, u.gpus, u.rate) for u in aws.lines if u.kind == GPU] == [
        ("p5.48xlarge", 8, 12_290_000), ("p5.48xlarge", 8, 12_290_000),
        ("ml.p5.48xlarge", 8, 12_290_000)]  # fmt: skip
    # An hourly line that is no instance (a NAT gateway) is never asked about as one.
    assert [u.kind for u in aws.lines if "natgateway" in u.node] == [FEE, FEE]
    [vm] = azure.lines
    assert (vm.instance_type, vm.gpus, vm.kind, vm.end - vm.start) == (
        "ND96isr H100 v5", 8, GPU, 86_400)  # fmt: skip


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (
            gzip.compress(b"a,b\n1,2\n" * 50)[:20],
            "cur.csv.gz is a gzip file that cannot be unpacked",
        ),
        (bz2.compress(b"a,b\n1,2\n"), "cur.csv.gz is bzip2-compressed (.bz2): unpack it"),
    ],
    ids=["cut-gzip", "bzip2"],  # gzip's header holds the time: ids from bytes differ per worker
)
def test_a_packed_export_is_refused_by_name_with_what_to_send(data: bytes, says: str) -> None:
    with pytest.raises(UsageError) as caught:
        read_bill(data, name="cur.csv.gz")
    assert str(caught.value).startswith(says)


def test_a_gzipped_export_is_read_as_the_csv_inside() -> None:
    # AWS Data Exports and Oracle's cost reports write `…-00001.csv.gz`.
    for name in ("aws_cur2.csv", "oci_cost_report.csv"):
        plain = (DATA / name).read_bytes()
        packed, bill = (
            read_bill(gzip.compress(plain), name=name + ".gz"),
            read_bill(plain, name=name),
        )
        assert packed.proposal == bill.proposal
        assert packed.lines == bill.lines and packed.other == bill.other


def test_an_older_oci_cost_report_names_the_unit_in_billing_unit_readable() -> None:
    """Before OCI added cost/skuUnitDescription, cost/billingUnitReadable said "GPU Per Hour":
    the GPU hours are GPU time, not fees."""
    name = "oci_cost_report_billing_unit.csv"
    old = read_bill((DATA / name).read_bytes(), name=name)
    new = read_bill((DATA / "oci_cost_report.csv").read_bytes(), name="oci_cost_report.csv")
    assert old.proposal.columns["unit"] == "cost/billingUnitReadable"
    assert old.errors == [] and old.questions == []
    gpu = [(u.line, u.node, u.quantity, u.rate, u.amount) for u in old.lines if u.kind == GPU]
    assert len(gpu) == 9
    assert gpu == [
        (u.line, u.node, u.quantity, u.rate, u.amount) for u in new.lines if u.kind == GPU
    ]
    assert old.totals()["gpu"] == 724_000_000
