"""A FOCUS 1.0 file in the shape of the FinOps Foundation's published sample data (AWS, Google
Cloud, Microsoft and Oracle rows in one file, every string quoted, empty cells written `NULL`,
no provider `x_` columns): the instance of an AWS hour is named only in its ChargeDescription,
and a cloud's line naming no instance is never an instance's time, even where the contract's
node size would price one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.billing.aws import described_instance
from engine.billing.bill import Bill, read_bill
from engine.billing.lines import EGRESS, FEE, GPU, gpu_hours

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
NAME = "focus_sample_data.csv"


def _read(*, answers: dict[str, int] | None = None) -> Bill:
    return read_bill((DATA / NAME).read_bytes(), name=NAME, node_gpus=8, answers=answers)


def test_null_cells_are_empty_not_bad_numbers() -> None:
    """Oracle's rows write ContractedUnitPrice `NULL`: the line is priced by its amount."""
    bill = _read()
    assert bill.detected.profile == "focus" and bill.errors == []
    [memory] = [u for u in bill.lines if u.line == 13]
    assert (memory.kind, memory.amount) == (FEE, 12_000)


def test_the_aws_instance_is_read_from_its_description() -> None:
    bill = _read()
    gpu = [u for u in bill.lines if u.kind == GPU and u.node.startswith("i-")]
    assert [(u.line, u.instance_type, u.gpus, gpu_hours(u.quantity)) for u in gpu] == [
        (2, "p5.48xlarge", 8, 8), (3, "p5.48xlarge", 8, 8), (4, "p5.48xlarge", 8, 8)]  # fmt: skip
    assert {u.rate for u in gpu} == {12_290_000}  # 98.32 per instance-hour / 8 GPUs
    # A c5 has no GPU (a family the catalogue knows to have none): a fee, never a question,
    # never priced at the node's size.
    assert bill.questions == [] and [u.kind for u in bill.lines if u.line == 5] == [FEE]


def test_a_clouds_line_naming_no_instance_is_never_gpu_time() -> None:
    """Lambda's seconds and GB-seconds, an A3 VM's cores, Defender's vCore-hours: all filed
    under Compute with a unit of time, none an instance's hour."""
    bill = _read()
    kinds = {u.line: u.kind for u in bill.lines}
    assert [kinds[n] for n in (6, 7, 12, 14)] == [FEE, FEE, FEE, FEE]
    assert (kinds[8], kinds[9]) == (EGRESS, FEE)  # out to the internet; between zones


def test_a_google_gpu_sku_is_billed_by_the_gpu_hour() -> None:
    bill = _read()
    [gpu] = [u for u in bill.lines if u.kind == GPU and "googleapis" in u.node]
    # 8 hours of the GPU SKU in one wall hour: 8 GPU-hours of one 8-GPU VM, not 8 VM-hours.
    assert (gpu.line, gpu.gpus, gpu_hours(gpu.quantity), gpu.rate) == (11, 8, 8, 11_060_000)
    # Fees include the c5.2xlarge hour (0.34): a family without GPUs.
    assert bill.totals() == {"gpu": 2_743_120_000, "fee": 6_521_810, "egress": 1_062_500,
                             "credit": -50_000_000}  # fmt: skip


def test_an_azure_vm_is_read_from_its_product_description() -> None:
    """Without x_SkuMeterName, Azure names the VM size in its product: "Virtual Machines ND
    Series - ND96isr H100 v5 - US East", a day of one VM."""
    bill = _read()
    [vm] = [u for u in bill.lines if u.line == 15]
    assert (vm.kind, vm.instance_type, vm.gpus, gpu_hours(vm.quantity), vm.rate) == (
        GPU, "ND96isr H100 v5", 8, 192, 12_290_000)  # fmt: skip


@pytest.mark.parametrize(
    ("description", "instance"),
    [
        ("$98.32 per On Demand Linux p5.48xlarge Instance Hour", "p5.48xlarge"),
        ("$0.19152 per On Demand Linux m7i-flex.xlarge Instance Hour", "m7i-flex.xlarge"),
        (
            "USD 0.0 per Linux/UNIX (Amazon VPC), p4d.24xlarge reserved instance applied",
            "p4d.24xlarge",
        ),
        # What the instance pays for EBS optimization is no hour of the instance.
        ("$0.05 for 1000 Mbps per c4.xlarge instance-hour (or partial hour)", ""),
        ("$0.045 per NAT Gateway Hour", ""),
    ],
)
def test_which_aws_descriptions_name_an_instance_hour(description: str, instance: str) -> None:
    assert described_instance(description) == instance
