"""Reading bills as people make them: locale numbers and dates, CSV dialects, workbooks with a
title block and a total row, units, instance types the engine must ask about, every bad line at
once, the generic guess's known mistakes, and matching billed ids to the contract's nodes."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from openpyxl import Workbook

from engine.billing import UsageError, guess_mapping
from engine.billing.bill import parse_unit, read_bill
from engine.billing.catalogue import CATALOGUE, lookup
from engine.billing.lines import EGRESS, FEE, GPU, gpu_hours
from engine.billing.localized import (
    COMMA,
    DAY_FIRST,
    DOT,
    ISO,
    MONTH_FIRST,
    detect_date_order,
    detect_decimal,
    parse_number,
    parse_time,
)
from engine.billing.nodes import EXACT, NORMALISED, ORDER, match_nodes
from engine.billing.sheet import Overrides, sniff_delimiter

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
M = 1_000_000


def _at(day: int, hour: int = 0) -> int:
    return int(datetime(2026, 3, day, hour, tzinfo=UTC).timestamp())


@pytest.mark.parametrize(
    ("text", "decimal", "micros"),
    [
        ("2,10", COMMA, 2_100_000),
        ("1.234,56", COMMA, 1_234_560_000),
        ("1,234.56", DOT, 1_234_560_000),
        ("€ 1.234,56", COMMA, 1_234_560_000),
        ("(12.50)", DOT, -12_500_000),
        ("-0,5", COMMA, -500_000),
        ("USD 98.32", DOT, 98_320_000),
        ("1 234,5", COMMA, 1_234_500_000),
        ("1.5E+02", DOT, 150_000_000),
        ("0.0000005", DOT, 1),  # half up at the sixth place
    ],
)
def test_numbers_in_each_locale(text, decimal, micros):
    assert parse_number(text, decimal=decimal) == micros


@pytest.mark.parametrize("text", ["#DIV/0!", "NaN", "inf", "9" * 5000, "12abc", "1.2.3"])
def test_what_is_no_number_says_why(text):
    with pytest.raises(ValueError) as caught:
        parse_number(text, decimal=DOT)
    assert len(str(caught.value)) < 120  # a 5,000-digit cell is not echoed whole


def test_the_decimal_mark_and_date_order_are_detected_from_many_cells():
    assert detect_decimal(samples=["2,10", "16,80", "1"], delimiter=";") == COMMA
    assert detect_decimal(samples=["1,234.56", "2.5"]) == DOT
    assert detect_decimal(samples=["1.234.567"]) == COMMA  # the points group thousands
    assert detect_decimal(samples=["1,234"], delimiter=";") == COMMA  # no evidence: the dialect
    assert detect_date_order(samples=["01/03/2026", "31/03/2026"]) == DAY_FIRST
    assert detect_date_order(samples=["03/01/2026", "03/31/2026"]) == MONTH_FIRST
    assert detect_date_order(samples=["03/01/2026"], default=MONTH_FIRST) == MONTH_FIRST
    assert detect_date_order(samples=["2026-03-01T05:00:00Z"]) == ISO
    assert parse_time("31/01/2026 14:30", order=DAY_FIRST) == int(
        datetime(2026, 1, 31, 14, 30, tzinfo=UTC).timestamp()
    )
    assert parse_time("03/01/2026 2:00 PM", order=MONTH_FIRST) == _at(1, 14)
    assert parse_time("2026-03-01 05:00:00 UTC") == _at(1, 5)
    assert parse_time("2026-03-01T07:00:00+02:00") == _at(1, 5)


def test_the_semicolon_decimal_comma_sample_is_read_as_written():
    bill = read_bill((DATA / "eu_semicolon.csv").read_bytes())
    seen = bill.detected
    assert (seen.delimiter, seen.decimal, seen.date_order) == (";", COMMA, DAY_FIRST)
    assert bill.lines[0].start == _at(1, 5) and bill.lines[0].rate == 2_100_000
    fee = next(u for u in bill.lines if u.charge == "fee")
    assert fee.amount == 1_234_560_000 and fee.start == _at(31)
    assert seen.describe()["Delimiter"] == "semicolon"


def test_the_user_overrides_what_was_detected():
    data = (DATA / "eu_semicolon.csv").read_bytes()
    bill = read_bill(data, overrides=Overrides(date_order=MONTH_FIRST))
    assert bill.detected.date_order == MONTH_FIRST
    assert {(e.line, e.column) for e in bill.errors} == {(n, "Start") for n in (11, 12, 13, 14)}
    assert "'31/03/2026 00:00' is not a date" in str(bill.errors[0])  # no month-first date


def test_dialects_are_sniffed():
    assert sniff_delimiter(text="a\tb\tc\n1\t2,5\t3\n") == "\t"
    assert sniff_delimiter(text="a;b;c\n1;2,5;3\n4;5,5;6\n") == ";"
    assert sniff_delimiter(text="a,b,c\n1,2.5,3\n") == ","
    with_hint = b"sep=;\n" + (DATA / "eu_semicolon.csv").read_bytes()
    assert read_bill(with_hint).detected.header_row == 1  # Excel's hint line is not a row


def _invoice_workbook() -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Invoice"
    sheet["A1"] = "Acme GPU Cloud: invoice INV-2026-03"
    sheet.merge_cells("A1:H1")
    sheet["A2"] = "Customer: Example Labs, reservation R-42"
    sheet.merge_cells("A2:D2")
    sheet.append([])
    sheet.append(["Hostname", "Instance type", "Start", "End", "Hours", "GPUs", "Rate", "Amount"])
    for hour in (6, 7):
        for node in ("node-a", "node-b"):
            start = datetime(2026, 3, 1, hour)
            end = datetime(2026, 3, 1, hour + 1)
            sheet.append([node, "8x H100 SXM", start, end, 1, 8, 2.5, 20.0])
        if hour == 6:
            sheet.append(["Subtotal", None, None, None, None, None, None, 40.0])
    sheet.append(["Total", None, None, None, None, None, None, 80.0])
    sheet.append(["Payment due within 30 days.", None, "not a date"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_workbook_header_below_a_title_block_and_its_total_rows():
    bill = read_bill(_invoice_workbook(), name="invoice.xlsx")
    seen = bill.detected
    assert (seen.kind, seen.sheet, seen.header_row, seen.profile) == (
        "xlsx",
        "Invoice",
        4,
        "neocloud",
    )
    assert seen.total_rows == (7, 10)  # the subtotal skipped, the total ends the lines
    assert bill.errors == []
    assert [u.line for u in bill.lines] == [5, 6, 8, 9]
    assert sum(u.quantity for u in bill.lines) == 32 * 60 * M  # 4 lines × 8 GPU-hours
    assert bill.lines[0].start == _at(1, 6) and bill.lines[0].rate == 2_500_000


@pytest.mark.parametrize(
    ("unit", "seconds", "per_gpu"),
    [
        ("Hrs", 3600, False),
        ("1 Hour", 3600, False),
        ("10 Hours", 36000, False),
        ("GPU-Hours", 3600, True),
        ("gpu-minutes", 60, True),
        ("GPU seconds", 1, True),
        ("hour", 3600, False),
        ("gibibyte", 0, False),
        ("GB-Mo", 0, False),
    ],
)
def test_units(unit, seconds, per_gpu):
    assert parse_unit(text=unit) == (parse_unit(text=unit).__class__(seconds, per_gpu))


def test_azure_meters_priced_per_ten_hours_convert_to_gpu_hours():
    text = (DATA / "azure_cost_details.csv").read_text()
    text = text.replace(",1 Hour,24,98.32,", ",10 Hours,2.4,983.20,")
    bill = read_bill(text.encode())
    line = bill.lines[1]
    assert gpu_hours(line.quantity) == 192 and line.rate == 12_290_000


def test_gpu_seconds_and_minutes_are_gpu_time_already():
    header = "Hostname,Instance type,Start,End,GPU seconds,Rate per GPU-hour,Amount\n"
    row = "node-a,8x H100,2026-03-01T06:00:00Z,2026-03-01T07:00:00Z,28800,2.50,20.00\n"
    (line,) = read_bill((header + row).encode()).lines
    assert gpu_hours(line.quantity) == 8 and line.rate == 2_500_000 and line.gpus == 8


def test_an_unknown_instance_type_is_asked_never_guessed():
    text = (DATA / "aws_cur2.csv").read_text().replace("p5.48xlarge", "x9.96xlarge")
    bill = read_bill(text.encode(), node_gpus=8)  # the contract's node size does not answer it
    assert [u for u in bill.lines if u.kind == GPU] == []
    (question,) = bill.questions
    assert question.instance_type == "x9.96xlarge" and question.count == 9
    assert question.lines[:3] == (2, 3, 4) and "x9.96xlarge" in question.ask
    answered = read_bill(text.encode(), answers={"x9.96xlarge": 8})
    assert answered.questions == [] and len([u for u in answered.lines if u.kind == GPU]) == 9
    assert gpu_hours(answered.lines[0].quantity) == 8


def test_lines_naming_no_type_take_the_contracts_node_size_or_ask():
    """A provider that bills its nodes by the hour without naming a type (here a neocloud's
    FOCUS export); the four clouds name the type of every instance-hour, see
    test_focus_sample_data.py."""
    text = (DATA / "focus_1_1.csv").read_text()
    text = text.replace('"{""InstanceType"": ""BM.GPU.H100.8"", ""GpuCount"": 8}"', "")
    text = text.replace("Oracle,Oracle,us-ashburn-1", "Nimbus GPU,Nimbus GPU,us-ashburn-1")
    asked = read_bill(text.encode())
    assert [(q.instance_type, q.count) for q in asked.questions] == [("", 9)]
    sized = read_bill(text.encode(), node_gpus=8)
    assert sized.questions == [] and gpu_hours(sized.lines[0].quantity) == 8


def test_the_catalogue_knows_the_usual_gpu_instances():
    for name, gpus in [
        ("p5.48xlarge", 8),
        ("p4d.24xlarge", 8),
        ("a3-highgpu-8g", 8),
        ("a3-ultragpu-8g", 8),
        ("Standard_ND96isr_H100_v5", 8),
        ("ND96isr H100 v5 Spot", 8),
        ("Standard_ND96amsr_A100_v4", 8),
        ("BM.GPU.H100.8", 8),
        ("gpu_8x_h100_sxm5", 8),
        ("4x A100 80GB", 4),
    ]:
        found = lookup(name=name)
        assert found is not None and found.gpus == gpus, name
    assert lookup(name="g6e.12xlarge") is None and len(CATALOGUE) >= 30


@pytest.mark.parametrize(
    "name",
    ["c5.2xlarge", "m7i-flex.large", "t3.micro", "r6g.16xlarge", "i4i.metal", "ml.m5.large",
     "n2-standard-8", "e2-medium", "c3-highcpu-22", "Standard_D8s_v5", "E64ds v5",
     "Standard_HB120rs_v3", "VM.Standard.E4.Flex"],
)  # fmt: skip
def test_a_family_without_gpus_is_known_to_have_none(name):
    found = lookup(name=name)
    assert found is not None and found.gpus == 0, name


@pytest.mark.parametrize(
    "name",
    ["g5.xlarge", "trn1.32xlarge", "g2-standard-8", "Standard_NC24ads_A100_v4", "VM.GPU.A10.1",
     "L40S", "B200", "L4", "x9.96xlarge"],
)  # fmt: skip
def test_gpu_families_and_bare_gpu_names_are_still_asked_about(name):
    # An accelerated family, or a GPU's own name ("L40S" is no Azure L-series VM), is never 0.
    assert lookup(name=name) is None, name


def test_a_cpu_instance_in_a_bill_is_a_fee_without_a_question():
    text = (DATA / "aws_cur2.csv").read_text().replace("p5.48xlarge", "c5.2xlarge")
    bill = read_bill(text.encode(), node_gpus=8)
    assert bill.questions == [] and [u for u in bill.lines if u.kind == GPU] == []
    assert all(u.kind in (FEE, EGRESS) for u in bill.lines)


def test_every_bad_line_is_listed_at_once_up_to_a_cap():
    header = "Hostname,Instance type,Start,End,Hours,GPUs,Rate ($/GPU-hr),Amount\n"
    good = "node-a,8x H100,2026-03-01T06:00:00Z,2026-03-01T07:00:00Z,1,8,2.50,20.00\n"
    rows = [good, good.replace("2026-03-01T06", "yesterday"), good.replace("2.50", "#DIV/0!")]
    rows += [good.replace("20.00", "NaN").replace(",8,", ",eight,")]
    rows += [good.replace("2.50", "abc")] * 60
    bill = read_bill((header + "".join(rows)).encode(), max_errors=50)
    assert len(bill.lines) == 1
    first = [(e.line, e.column) for e in bill.errors[:4]]
    assert first == [(3, "Start"), (4, "Rate ($/GPU-hr)"), (5, "Amount"), (5, "GPUs")]
    assert "'yesterday:00:00Z' is not a date" in str(bill.errors[0])
    assert "spreadsheet error" in str(bill.errors[1]) and "line 4" in str(bill.errors[1])
    assert len(bill.errors) == 50 and bill.more_errors == 64 - 50


def test_the_generic_guess_avoids_its_known_mistakes():
    aws = guess_mapping(
        [
            "bill_billing_period_start_date",
            "bill_billing_period_end_date",
            "line_item_usage_account_id",
            "line_item_usage_start_date",
            "line_item_usage_end_date",
            "line_item_resource_id",
            "line_item_usage_amount",
            "line_item_blended_rate",
            "line_item_unblended_rate",
            "line_item_unblended_cost",
        ]
    ).columns
    assert aws["period_start"] == "line_item_usage_start_date"  # not the billing period
    assert aws["period_end"] == "line_item_usage_end_date"
    assert aws["quantity"] == "line_item_usage_amount"  # not the account id
    assert aws["rate"] == "line_item_unblended_rate"
    gcp = guess_mapping(["Invoice month", "Usage start date", "Currency conversion rate", "Cost"])
    assert gcp.columns["period_start"] == "Usage start date"
    assert "rate" not in gcp.columns  # a conversion rate is no price
    azure = guess_mapping(["ResourceGroup", "ResourceId", "Date", "Quantity", "EffectivePrice"])
    assert azure.columns["node"] == "ResourceId"  # not the resource group


def test_an_unknown_layout_still_reads_through_the_generic_guess():
    header = "From,Until,Server name,Devices,Duration,Unit price,Charge,Kind\n"
    row = "2026-03-01T06:00:00Z,2026-03-01T07:30:00Z,gpu-b01,8,1.5,2.50,30.00,gpu\n"
    bill = read_bill((header + row + "2026-03-31T00:00:00Z,,,,,,120.00,egress\n").encode())
    assert bill.detected.profile == "generic"
    gpu, egress = bill.lines
    assert gpu_hours(gpu.quantity) == 12 and gpu.rate == 2_500_000 and egress.kind == "egress"


def test_billed_ids_are_matched_to_contract_nodes():
    match = match_nodes(
        billed=[
            "gpu-b01",
            "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/GPU-B02",
            "gpu-b03.cluster.internal",
            "i-0abc",
            "i-0def",
            "",
        ],
        nodes=["gpu-b01", "gpu-b02", "gpu-b03", "gpu-b04"],
    )
    assert match.matched == {
        "gpu-b01": "gpu-b01",
        "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/GPU-B02": (
            "gpu-b02"
        ),
        "gpu-b03.cluster.internal": "gpu-b03",
        "i-0abc": "gpu-b04",
    }
    assert list(match.how.values()) == [EXACT, NORMALISED, NORMALISED, ORDER]
    assert match.unmatched_billed == ["i-0def"] and match.unmatched_nodes == []
    strict = match_nodes(billed=["i-0abc"], nodes=["gpu-b01"], by_order=False)
    assert strict.matched == {} and strict.unmatched_nodes == ["gpu-b01"]


def test_a_file_no_profile_can_read_says_what_is_missing():
    with pytest.raises(UsageError) as caught:
        read_bill(b"when,who,what\n2026-03-01,a,b\n")
    assert "no column holds" in str(caught.value)


def test_a_windows_1252_export_is_decoded_and_says_so():
    text = (DATA / "eu_semicolon.csv").read_text(encoding="utf-8")
    bill = read_bill(text.encode("cp1252"))
    assert bill.detected.encoding == "windows-1252"
    assert bill.proposal.columns["rate"] == "Rate (€/GPU-h)" and bill.lines[0].currency == "EUR"


def test_the_legacy_planted_file_reads_the_same_through_read_bill():
    legacy = Path(__file__).resolve().parents[2] / "billing" / "data" / "usage_planted.csv"
    bill = read_bill(legacy.read_bytes())
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert len(gpu) == 13 and bill.errors == [] and bill.questions == []
    assert {(u.rate, u.amount) for u in gpu} == {(2_500_000, 20 * M), (2_750_000, 22 * M)}
    assert sorted(u.kind for u in bill.lines if u.kind != GPU) == ["egress", "fee"]


def test_an_invoices_bare_end_date_is_its_midnight_so_days_do_not_overlap():
    """Only Google's cost table is known to end a row on its last day (see
    test_bill_gcp_gpu_vms.py); an invoice's "2026-03-02" may end the first day as well, and
    reading it as a whole day would bill each day twice over."""
    header = "Hostname,Instance type,Start,End,Hours,Rate per GPU-hour,Amount\n"
    rows = [f"node-a,8x H100,2026-03-0{d},2026-03-0{d + 1},24,2.50,480.00\n" for d in (1, 2)]
    bill = read_bill((header + "".join(rows)).encode())
    days = [int(datetime(2026, 3, d, tzinfo=UTC).timestamp()) for d in (1, 2, 3)]
    assert [(u.start, u.end) for u in bill.lines] == [(days[0], days[1]), (days[1], days[2])]
