"""What real exports write that the reading once refused or misread: a usage row with a
negative quantity (Azure's refunds, corrections and reservation adjustments), Google's cost
table in another currency than its "($)" headers say, Parquet row positions, a FOCUS preview
with no cost column, and an empty file inside a gzip."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.billing.bill import read_bill
from engine.billing.errors import UsageError
from engine.billing.lines import GPU
from engine.billing.reader import open_table, positioned
from engine.billing.reconcile import Contract, reconcile
from tests.engine.billing.bill_rows import DATA, csv_bytes, export_rows
from tests.engine.billing.test_bill_parquet import cur2_parquet

M = 1_000_000


def _at(day: int, hour: int = 0) -> int:
    return int(datetime(2026, 3, day, hour, tzinfo=UTC).timestamp())


def _contract(rate: str = "12.29", currency: str = "USD") -> Contract:
    return Contract(
        currency=currency,
        clock_start=_at(1),
        term_end=int(datetime(2026, 6, 1, tzinfo=UTC).timestamp()),
        rate=int(Decimal(rate) * M),
        fees=2_000 * M,
        egress=500 * M,
    )


# -- a negative quantity on a usage row ---------------------------------------------------------


def _azure_with_a_negative_row() -> bytes:
    header, rows = export_rows("azure_cost_details.csv")
    usage = [
        r for r in rows if r["ChargeType"] == "Usage" and r["MeterCategory"] == "Virtual Machines"
    ]
    # A correction of one of the days: the same meter and resource, 24 hours taken back.
    correction = usage[1] | {"Quantity": "-24", "CostInBillingCurrency": "-2359.68"}
    return csv_bytes(header, [usage[1], correction])


def test_a_negative_usage_quantity_reaches_the_negative_rule_instead_of_refusing_the_bill():
    bill = read_bill(_azure_with_a_negative_row(), name="cost-details.csv")
    assert bill.errors == [] and bill.questions == []
    billed, taken_back = [u for u in bill.lines if u.kind == GPU]
    assert taken_back.quantity == -billed.quantity and taken_back.amount == -billed.amount
    assert taken_back.rate == billed.rate == 12_290_000  # the credit is at the billed rate
    assert taken_back.end - taken_back.start == 86_400  # still the day it corrects
    result = reconcile(bill.lines, _contract())
    assert [(d.line, d.rule) for d in result.differences] == [(3, "negative")]
    assert result.differences[0].message.startswith("negative quantity and amount")
    # The negative line is allowed nothing; the day it corrects is allowed in full.
    assert result.allowed["gpu"] == billed.amount


def test_a_negative_consumed_quantity_in_a_focus_export_is_read_and_listed():
    header, rows = export_rows("focus_azure_export.csv")
    negative = rows[0] | {
        "ConsumedQuantity": "-24",
        "PricingQuantity": "-24",
        "BilledCost": "-2359.68",
        "EffectiveCost": "-2359.68",
        "ListCost": "-2359.68",
        "ContractedCost": "-2359.68",
    }
    bill = read_bill(csv_bytes(header, [rows[0], negative]), name="focus.csv")
    assert bill.errors == []
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert [u.quantity < 0 for u in gpu] == [False, True]
    result = reconcile(bill.lines, _contract())
    assert [(d.line, d.rule) for d in result.differences] == [(3, "negative")]


def test_a_negative_quantity_with_no_amount_or_rate_is_still_a_cell_error():
    header, rows = export_rows("azure_cost_details.csv")
    row = rows[1] | {"Quantity": "-24", "CostInBillingCurrency": "", "EffectivePrice": ""}
    bill = read_bill(csv_bytes(header, [row]), name="cost-details.csv")
    assert [e.reason for e in bill.errors] == ["the line has neither a rate nor an amount."]


# -- Google's cost table in another currency ------------------------------------------------


def _cost_table(currency: str) -> bytes:
    text = (DATA / "gcp_cost_table_invoice.csv").read_text()
    return text.replace("Currency,USD,", f"Currency,{currency},").encode()


def test_a_cost_tables_currency_line_says_the_currency_its_dollar_headers_do_not():
    bill = read_bill(_cost_table("AUD"), name="cost-table.csv", node_gpus=8)
    assert bill.errors == [] and bill.proposal.columns["amount"].endswith("Cost ($)")
    assert {u.currency for u in bill.lines + bill.other} == {"AUD"}
    # An Australian-dollar contract takes the amounts as they are; a US-dollar one lists every
    # line's currency as it lists any other line billed in a foreign currency.
    gpu = [u for u in bill.lines if u.kind == GPU]
    assert not any(
        d.rule == "currency" for d in reconcile(gpu, _contract("11.06", "AUD")).differences
    )
    in_usd = reconcile(gpu, _contract("11.06", "USD"))
    assert [(d.line, d.rule) for d in in_usd.differences] == [(10, "currency")]
    assert in_usd.differences[0].message == "billed in AUD; the contract is in USD."


def test_a_cost_table_in_us_dollars_and_a_file_with_no_currency_line_are_as_before():
    usd = read_bill(_cost_table("USD"), name="cost-table.csv", node_gpus=8)
    assert {u.currency for u in usd.lines + usd.other} == {"USD"}
    header, rows = export_rows("gcp_billing.csv")  # its own Currency column names each line
    plain = read_bill(csv_bytes(header, rows), name="gcp.csv")
    assert {u.currency for u in plain.lines} == {"USD"}


def test_a_cost_table_whose_only_line_above_the_header_is_its_currency():
    text = (DATA / "gcp_cost_table_invoice.csv").read_text().splitlines()
    header = next(i for i, line in enumerate(text) if line.startswith("Billing account name"))
    data = "\n".join(["Currency,EUR", *text[header:]]).encode()
    bill = read_bill(data, name="cost-table.csv", node_gpus=8)
    assert bill.detected.header_row == 2 and bill.errors == []
    assert {u.currency for u in bill.lines + bill.other} == {"EUR"}


# -- a Parquet file's errors name rows ------------------------------------------------------


def _parquet_with_a_bad_rate() -> tuple[bytes, int]:
    table = pq.read_table(io.BytesIO(cur2_parquet()))
    index = table.schema.get_field_index("line_item_unblended_rate")
    rates = [str(v) for v in table.column(index).to_pylist()]
    rates[2] = "n/a"  # the third data row: line 4 of the CSV export, row 3 of the Parquet file
    out = io.BytesIO()
    pq.write_table(table.set_column(index, "line_item_unblended_rate", pa.array(rates)), out)
    return out.getvalue(), 3


def test_a_parquet_bills_errors_name_the_row_the_first_data_row_being_row_1():
    data, row = _parquet_with_a_bad_rate()
    bill = read_bill(data, name="cur2-00001.snappy.parquet")
    [error] = bill.errors
    assert error.line == row + 1 and error.cell == f"row {row}"
    assert str(error).startswith(f"row {row}, column 'line_item_unblended_rate': ")


def test_the_simple_mappings_reader_names_a_parquet_files_rows_too():
    data, _ = _parquet_with_a_bad_rate()
    table = open_table(data, name="cur2.parquet")
    assert table.kind == "parquet"
    moved = positioned(UsageError("the rate is empty.", line=4, column="rate"), table)
    assert str(moved) == "row 3, column 'rate': the rate is empty." and moved.line == 4
    csv_table = open_table(csv_bytes(*export_rows("aws_cur2.csv")), name="cur2.csv")
    same = UsageError("the rate is empty.", line=4, column="rate")
    assert positioned(same, csv_table) is same


def test_a_csv_bills_errors_still_name_the_line():
    header, rows = export_rows("aws_cur2.csv")
    rows[2] = rows[2] | {"line_item_unblended_rate": "n/a"}
    [error] = read_bill(csv_bytes(header, rows), name="cur2.csv").errors
    assert str(error).startswith("line 4, column 'line_item_unblended_rate': ")


def test_a_parquet_files_question_names_rows():
    table = pq.read_table(io.BytesIO(cur2_parquet()))
    index = table.schema.get_field_index("product_instance_type")
    types = table.column(index).to_pylist()
    types = ["zz9.huge" if t == "p5.48xlarge" else t for t in types]
    usage = table.column("line_item_usage_type").to_pylist()
    usage = [u.replace("p5.48xlarge", "zz9.huge") if u else u for u in usage]
    table = table.set_column(index, "product_instance_type", pa.array(types))
    at = table.schema.get_field_index("line_item_usage_type")
    table = table.set_column(at, "line_item_usage_type", pa.array(usage))
    out = io.BytesIO()
    pq.write_table(table, out)
    [question] = read_bill(out.getvalue(), name="cur2.parquet").questions
    assert "row(s) bill it by the hour (first: row 1, 2, 3" in question.ask


# -- a FOCUS export with no cost column -------------------------------------------------------

_COSTS = ("BilledCost", "EffectiveCost", "ListCost", "ContractedCost")
_PRICES = ("ListUnitPrice", "ContractedUnitPrice")


def _usage_only(*, blank: bool) -> bytes:
    """The FOCUS sample as CoreWeave's preview writes it: quantities, no cost (the columns left
    out, or, `blank`, written and left empty)."""
    header, rows = export_rows("focus_1_1.csv")
    gone = (*_COSTS, *_PRICES)
    if blank:
        return csv_bytes(header, [r | dict.fromkeys(gone, "") for r in rows])
    kept = [h for h in header if h not in gone]
    return csv_bytes(kept, [{h: r[h] for h in kept} for r in rows])


def test_a_focus_export_without_cost_columns_is_refused_once_naming_them():
    with pytest.raises(UsageError) as caught:
        read_bill(_usage_only(blank=False), name="coreweave-focus.csv")
    message = caught.value.reason
    assert "states no cost" in message and "are absent" in message
    assert all(name in message for name in _COSTS)


def test_a_focus_export_whose_cost_columns_are_empty_on_every_line_is_refused_once():
    with pytest.raises(UsageError) as caught:
        read_bill(_usage_only(blank=True), name="coreweave-focus.csv")
    assert "are empty on every line" in caught.value.reason
    assert all(name in caught.value.reason for name in _COSTS)


def test_one_focus_line_without_a_cost_is_still_that_lines_error():
    header, rows = export_rows("focus_1_1.csv")
    rows[1] = rows[1] | dict.fromkeys((*_COSTS, *_PRICES), "")
    bill = read_bill(csv_bytes(header, rows), name="focus.csv")
    assert [(e.line, e.reason) for e in bill.errors] == [
        (3, "the line has neither a rate nor an amount.")
    ]


# -- an empty file inside a gzip ------------------------------------------------------------


def test_a_gzip_is_empty_only_when_it_is_whole_and_unpacks_to_no_byte():
    import gzip

    from engine.packed import unpacks_empty

    assert unpacks_empty(gzip.compress(b""))
    assert unpacks_empty(gzip.compress(b"", compresslevel=1, mtime=0))
    assert not unpacks_empty(gzip.compress(b"x"))
    assert not unpacks_empty(gzip.compress(b"")[:-4])  # cut off: its full read says so
    assert not unpacks_empty(gzip.compress(b"") + gzip.compress(b"x"))  # a second member
    assert not unpacks_empty(b"") and not unpacks_empty(b"usage_start,node\n")
    with pytest.raises(UsageError) as caught:  # what the reading says when it gets one
        read_bill(gzip.compress(b""), name="cur2-00001.csv.gz")
    assert "is empty" in str(caught.value)
