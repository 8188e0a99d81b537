"""One rule for what a network line is, whichever cloud and layout bills it: egress (the bid's
egress allowance) is data leaving the provider's region, to the internet or to another region;
data moved between a region's zones, data coming in, and what a gateway processes are network
fees (the fees allowance). The rows are the sample bills' own, with the meter each cloud names
its data transfer by: AWS's usage types
(https://docs.aws.amazon.com/cur/latest/userguide/cur-data-transfers-charges.html), Google's
Compute Engine network SKUs and Azure's Bandwidth meters."""

from __future__ import annotations

import pytest

from engine.billing.bill import Bill, read_bill
from engine.billing.lines import EGRESS, FEE
from tests.engine.billing.bill_rows import csv_bytes, export_rows

# (usage type, its line item description as AWS writes it, what it is)
AWS_TRANSFERS = [
    (
        "USE1-DataTransfer-Out-Bytes",
        "$0.09 per GB - first 10 TB / month data transfer out beyond the global free tier",
        EGRESS,
    ),
    ("USE1-USE2-AWS-Out-Bytes", "$0.02 per GB - US East (Virginia) to US East (Ohio)", EGRESS),
    ("USE1-CloudFront-Out-Bytes", "$0.00 per GB data transfer out to CloudFront", EGRESS),
    (
        "USE1-DataTransfer-Regional-Bytes",
        "$0.01 per GB - regional data transfer - in/out/between EC2 AZs or using elastic IPs",
        FEE,
    ),
    ("USE1-USE2-AWS-In-Bytes", "$0.00 per GB - US East (Ohio) from US East (Virginia)", FEE),
    ("USE1-DataTransfer-In-Bytes", "$0.00 per GB - data transfer in per month", FEE),
    ("USE1-TransitGateway-Bytes", "$0.02 per GB - Transit Gateway data processed", FEE),
]  # fmt: skip


def _bill(name: str, header: list[str], rows: list[dict[str, str]]) -> Bill:
    bill = read_bill(csv_bytes(header, rows), name=name)
    assert bill.errors == [] and bill.questions == []
    return bill


def _kinds(bill: Bill) -> list[tuple[int, str, int | None]]:
    return [(u.line, u.kind, u.amount) for u in bill.lines]


def test_aws_data_transfer_is_egress_only_when_it_leaves_the_region_in_a_cur() -> None:
    header, rows = export_rows("aws_cur2.csv")
    [base] = [r for r in rows if r["line_item_usage_type"].endswith("DataTransfer-Out-Bytes")]
    lines = [
        base | {"line_item_usage_type": usage_type, "line_item_line_item_description": text}
        for usage_type, text, _kind in AWS_TRANSFERS
    ]
    bill = _bill("cur.csv", header, lines)
    assert bill.proposal.profile.name == "aws-cur2"
    assert [u.kind for u in bill.lines] == [kind for *_, kind in AWS_TRANSFERS]


def test_aws_data_transfer_reads_the_same_in_the_focus_export_as_in_the_cur() -> None:
    """The FOCUS export files every data transfer line under ServiceCategory Networking; the
    usage type still decides, so an inter-AZ line is the fee it is in the CUR, not egress."""
    header, rows = export_rows("focus_aws_export.csv")
    [base] = [r for r in rows if r["x_UsageType"].endswith("DataTransfer-Out-Bytes")]
    assert base["ServiceCategory"] == "Networking"
    lines = [
        base | {"x_UsageType": usage_type, "ChargeDescription": text}
        for usage_type, text, _kind in AWS_TRANSFERS
    ]
    bill = _bill("focus.csv", header, lines)
    assert bill.proposal.profile.name == "focus"
    assert [u.kind for u in bill.lines] == [kind for *_, kind in AWS_TRANSFERS]
    # FOCUS 1.2 names the usage type in SkuMeter.
    header = ["SkuMeter" if h == "x_UsageType" else h for h in header]
    lines = [{("SkuMeter" if k == "x_UsageType" else k): v for k, v in r.items()} for r in lines]
    assert [u.kind for u in _bill("focus.csv", header, lines).lines] == [
        kind for *_, kind in AWS_TRANSFERS
    ]


GCP_TRANSFERS = [
    ("Network Internet Data Transfer Out from Americas to Americas", EGRESS),
    ("Network Internet Egress from Americas to EMEA", EGRESS),  # the SKU's former name
    ("Network Inter Region Data Transfer Out from Americas to EMEA", EGRESS),
    ("Network Inter Zone Data Transfer Out", FEE),
    ("Network Inter Zone Egress", FEE),
    ("Network Intra Zone Data Transfer Out", FEE),
]


def test_google_network_skus_are_egress_only_out_of_the_region() -> None:
    header, rows = export_rows("gcp_billing.csv")
    [base] = [r for r in rows if "Data Transfer" in r["SKU description"]]
    lines = [base | {"SKU description": sku} for sku, _kind in GCP_TRANSFERS]
    bill = _bill("gcp.csv", header, lines)
    assert bill.proposal.profile.name == "gcp"
    assert [u.kind for u in bill.lines] == [kind for _sku, kind in GCP_TRANSFERS]


def test_google_and_azure_focus_exports_follow_the_same_rule() -> None:
    """Google's and Azure's FOCUS exports carry no usage type: the meter's words decide, and a
    Networking line they do not name is egress only when it is billed by the byte."""
    header, rows = export_rows("focus_1_1.csv")
    [base] = [r for r in rows if r["ServiceCategory"] == "Networking"]
    words = [
        ("Network Inter Zone Data Transfer Out", "GiB", FEE),
        ("Network Internet Data Transfer Out from Americas to Americas", "GiB", EGRESS),
        ("Standard Inter-Availability Zone Data Transfer Out", "GB", FEE),
        ("Intra-Region Egress", "GB", FEE),  # VNet peering inside a region
        ("Inter-Region Egress", "GB", EGRESS),
        ("Outbound Data Transfer", "GB", EGRESS),
        ("Load Balancer Capacity Units", "LCU", FEE),
    ]
    lines = [
        base | {"ChargeDescription": text, "PricingUnit": unit, "ConsumedUnit": unit}
        for text, unit, _kind in words
    ]
    bill = _bill("focus.csv", header, lines)
    assert [u.kind for u in bill.lines] == [kind for *_, kind in words]


AZURE_TRANSFERS = [
    ("Bandwidth - Data Transfer Out - Zone 1", "Standard Data Transfer Out", EGRESS),
    ("Bandwidth Inter-Region", "Intra Continent Data Transfer Out", EGRESS),
    ("Rtn Preference: MGN", "Standard Inter-Availability Zone Data Transfer Out", FEE),
    ("Rtn Preference: MGN", "Standard Inter-Availability Zone Data Transfer In", FEE),
    ("Bandwidth - Data Transfer In", "Data Transfer In", FEE),
]


def test_azure_bandwidth_meters_are_egress_only_out_of_the_region() -> None:
    header, rows = export_rows("azure_cost_details.csv")
    [base] = [r for r in rows if r["MeterCategory"] == "Bandwidth"]
    lines = [base | {"ProductName": p, "MeterName": m} for p, m, _kind in AZURE_TRANSFERS]
    bill = _bill("azure.csv", header, lines)
    assert bill.proposal.profile.name == "azure"
    assert [u.kind for u in bill.lines] == [kind for *_, kind in AZURE_TRANSFERS]


@pytest.mark.parametrize(
    ("description", "kind"),
    [("Internet egress, 1.2 TB", EGRESS), ("Inter-zone data transfer, 1.2 TB", FEE)],
)
def test_a_neocloud_invoice_names_its_network_lines_in_words(description: str, kind: str) -> None:
    header, rows = export_rows("neocloud_invoice.csv")
    [base] = [r for r in rows if r["Type"] == "Egress"]
    bill = _bill("neo.csv", header, [base | {"Type": "Network", "Description": description}])
    assert bill.proposal.profile.name == "neocloud"
    assert [u.kind for u in bill.lines] == [kind]
