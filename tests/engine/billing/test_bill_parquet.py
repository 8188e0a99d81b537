"""A Parquet export (AWS Data Exports writes CUR 2.0 and FOCUS as Parquet by default) is read as
the CSV export of the same rows: the same lines, the same classes, the same planted errors.

The Parquet files are written here from the CSV samples with the column types of the CUR 2.0
table dictionary (https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html):
times are timestamps, amounts and rates doubles, `product` and `resource_tags` maps."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.billing import Contract, Outage, reconcile, to_micro
from engine.billing.bill import Bill, read_bill
from engine.billing.errors import UsageError
from engine.billing.lines import EGRESS, GPU
from engine.billing.nodes import match_nodes
from engine.billing.reader import open_table

DATA = Path(__file__).resolve().parents[2] / "data" / "billing"
M = 1_000_000
DOUBLES = {
    "line_item_usage_amount", "line_item_unblended_rate", "line_item_unblended_cost",
    "line_item_blended_rate", "line_item_blended_cost", "pricing_public_on_demand_rate",
}  # fmt: skip


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)


def _column(name: str, values: list[str]) -> pa.Array:
    if name.endswith("_date"):
        return pa.array([_moment(v) if v else None for v in values], pa.timestamp("ms"))
    if name in DOUBLES:
        return pa.array([float(v) if v else None for v in values], pa.float64())
    return pa.array([v or None for v in values], pa.string())


def cur2_parquet(csv_name: str = "aws_cur2.csv", **extra: pa.Array) -> bytes:
    """The CSV sample's rows as a CUR 2.0 Parquet file, with `extra` columns after them."""
    header, *rows = list(csv.reader(io.StringIO((DATA / csv_name).read_text())))
    columns = {name: _column(name, [r[i] for r in rows]) for i, name in enumerate(header)}
    table = pa.table({**columns, **extra})
    out = io.BytesIO()
    pq.write_table(table, out, compression="snappy")  # as Data Exports writes it
    return out.getvalue()


def _rows() -> int:
    return len((DATA / "aws_cur2.csv").read_text().splitlines()) - 1


def _bill(data: bytes) -> Bill:
    return read_bill(data, name="cur2-00001.snappy.parquet")


def test_a_cur2_parquet_export_reads_as_the_same_lines_as_its_csv() -> None:
    parquet, plain = _bill(cur2_parquet()), read_bill((DATA / "aws_cur2.csv").read_bytes())
    assert parquet.proposal.profile.name == "aws-cur2"
    assert parquet.detected.kind == "parquet" and parquet.detected.header_row == 1
    assert parquet.errors == [] and parquet.questions == []
    assert parquet.lines == plain.lines and parquet.other == plain.other
    gpu = [u for u in parquet.lines if u.kind == GPU]
    assert {(u.instance_type, u.gpus) for u in gpu} == {("p5.48xlarge", 8)}
    # Lines are numbered as in the CSV export: the column names are line 1.
    assert [u.line for u in parquet.lines][:2] == [2, 3]


def test_reconciling_the_parquet_export_finds_the_three_planted_errors() -> None:
    bill = _bill(cur2_parquet())
    match = match_nodes(
        billed=[u.node for u in bill.lines if u.kind == GPU], nodes=["node-a", "node-b"]
    )
    lines = [replace(u, node=match.matched.get(u.node, u.node)) for u in bill.lines]
    outage = Outage(node="node-b", start=_at(8), end=_at(9), label="incident #1 (S1)")
    contract = Contract(
        currency="USD", clock_start=_at(6), term_end=_at(0, day=31), rate=12_290_000,
        fees=2_000 * M, egress=500 * M, outages=[outage],
    )  # fmt: skip
    found = sorted((d.line, d.rule) for d in reconcile(lines, contract).differences)
    assert found == [(2, "before-clock"), (8, "node-out"), (9, "rate")]


def _at(hour: int, *, day: int = 1) -> int:
    return int(datetime(2026, 3, day, hour, tzinfo=UTC).timestamp())


def _cells(data: bytes) -> tuple[list[str], list[str]]:
    table = open_table(data, name="cur2.parquet")
    return table.headers, next(table.rows)[1]


def test_map_columns_read_as_the_json_the_csv_export_prints() -> None:
    n, pairs = _rows(), pa.map_(pa.string(), pa.string())
    tags = pa.array([[("user_team", "llm"), ("user_run", "pretrain-7")]] * n, pairs)
    data = cur2_parquet(resource_tags=tags, discount=pa.array([[]] * n, pairs))
    headers, first = _cells(data)
    assert first[headers.index("resource_tags")] == '{"user_team":"llm","user_run":"pretrain-7"}'
    assert first[headers.index("discount")] == "{}"
    assert first[headers.index("line_item_usage_start_date")] == "2026-03-01T05:00:00"
    assert _bill(data).lines == _bill(cur2_parquet()).lines


def test_a_tiny_double_is_read_in_plain_notation_not_refused() -> None:
    # A few kilobytes out cost a fraction of a cent: Arrow hands 1.2e-05 over as a float.
    table = pq.read_table(io.BytesIO(cur2_parquet()))
    costs = table.column("line_item_unblended_cost").to_pylist()
    types = table.column("line_item_usage_type").to_pylist()
    egress = next(i for i, t in enumerate(types) if "DataTransfer-Out" in t)
    costs[egress] = 0.000012
    index = table.schema.get_field_index("line_item_unblended_cost")
    out = io.BytesIO()
    pq.write_table(table.set_column(index, "line_item_unblended_cost", pa.array(costs)), out)
    bill = _bill(out.getvalue())
    assert bill.errors == []
    [line] = [u for u in bill.lines if u.kind == EGRESS]
    assert (line.line, line.amount) == (egress + 2, to_micro("0.000012"))


def test_a_cut_off_parquet_file_is_refused_naming_it() -> None:
    data = cur2_parquet()
    with pytest.raises(UsageError) as caught:
        _bill(data[: len(data) // 2])
    assert str(caught.value).startswith("cur2-00001.snappy.parquet cannot be read as Parquet")


def test_a_parquet_file_that_unpacks_past_the_limit_is_refused_before_any_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("engine.billing.parquet.MAX_UNPACKED", 1024)
    with pytest.raises(UsageError) as caught:
        _bill(cur2_parquet())
    assert "send one month's export at a time" in str(caught.value)
