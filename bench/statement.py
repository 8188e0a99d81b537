"""Reconcile a year of provider usage lines: parse and check ~1,000,000 lines.

Run: .venv/bin/python bench/statement.py [--shape minute|hour|cur|all]

Three shapes, each a year: per-minute lines for 2 nodes of 8 GPUs (GPU-minutes, 1,051,200 lines),
per-hour lines for 100 nodes (hours, 876,000 lines), both in our own column names, and an AWS
Cost and Usage Report 2.0 of hourly `p5.48xlarge` instance-hours for 16 instances with a tax line
a month (140,172 lines), read through its recognised profile (`read_bill`: instance-hours × the
catalogue's 8 GPUs). Each file is built in memory as the provider exports it, with a few planted
errors (usage before the clock, a node billed during its outage, a wrong rate), then read and
reconciled by `engine.billing` exactly as an upload is, against a contract that names the
allocation's nodes and their GPUs (so the node, GPU-count, period and double-billing checks run
on every line).
Prints lines, seconds, lines per second, the differences found and the peak memory of the
process (ru_maxrss, which includes the generated file itself).
"""

from __future__ import annotations

import argparse
import io
import resource
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.billing import Contract, Mapping, Outage, open_table, read_bill, read_lines, reconcile

YEAR = datetime(2026, 1, 1, tzinfo=UTC)
MINUTE_HEADER = "usage_start,usage_end,instance_id,gpu_count,gpu_minutes,unit_price,amount\n"
HOUR_HEADER = "period_start,period_end,node,gpus,hours,rate,amount,line_type\n"


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def minute_file() -> tuple[bytes, Mapping]:
    out = io.StringIO()
    out.write(MINUTE_HEADER)
    minutes = 365 * 24 * 60
    moment = YEAR
    step = timedelta(minutes=1)
    for i in range(minutes):
        start, end = _stamp(moment), _stamp(moment + step)
        rate = "2.90" if i == 500_000 else "2.50"
        amount = "0.386667" if i == 500_000 else "0.333333"
        out.write(f"{start},{end},gpu-a01,8,8,{rate},{amount}\n")
        out.write(f"{start},{end},gpu-a02,8,8,2.50,0.333333\n")
        moment += step
    mapping = Mapping(
        columns={
            "period_start": "usage_start",
            "period_end": "usage_end",
            "node": "instance_id",
            "gpus": "gpu_count",
            "quantity": "gpu_minutes",
            "rate": "unit_price",
            "amount": "amount",
        },
        unit="gpu-minutes",
    )
    return out.getvalue().encode(), mapping


def hour_file() -> tuple[bytes, Mapping]:
    out = io.StringIO()
    out.write(HOUR_HEADER)
    moment = YEAR
    step = timedelta(hours=1)
    for _ in range(365 * 24):
        start, end = _stamp(moment), _stamp(moment + step)
        for n in range(100):
            out.write(f"{start},{end},gpu-{n:03d},8,1,2.50,20.00,gpu\n")
        moment += step
    out.write(f"{_stamp(YEAR)},,,,,,1500.00,egress\n")
    return out.getvalue().encode(), Mapping(
        columns={f: f for f in ("period_start", "period_end", "node", "gpus", "rate", "amount")}
        | {"quantity": "hours", "line_type": "line_type"}
    )


CUR_HEADER = (
    "bill_billing_period_start_date,bill_payer_account_id,line_item_line_item_type,"
    "line_item_usage_start_date,line_item_usage_end_date,line_item_product_code,"
    "line_item_usage_type,line_item_resource_id,line_item_usage_amount,line_item_currency_code,"
    "line_item_unblended_rate,line_item_unblended_cost,product_instance_type,pricing_unit\n"
)
CUR_RATE = "98.32"  # p5.48xlarge on demand, per instance-hour: 12.29 per GPU-hour


def cur_file() -> bytes:
    out = io.StringIO()
    out.write(CUR_HEADER)
    moment = YEAR
    step = timedelta(hours=1)
    for hour in range(365 * 24):
        start, end = _stamp(moment), _stamp(moment + step)
        month = f"{moment:%Y-%m}-01T00:00:00Z"
        for n in range(16):
            rate = "99.00" if (hour, n) == (5000, 3) else CUR_RATE
            node = "gpu-a02" if n == 1 else f"i-0a1b2c3d4e5f{n:05d}"
            out.write(
                f"{month},111122223333,Usage,{start},{end},AmazonEC2,"
                f"USE1-BoxUsage:p5.48xlarge,{node},1.0,USD,{rate},{rate},p5.48xlarge,Hrs\n"
            )
        if moment.day == 1 and moment.hour == 0:
            out.write(
                f"{month},111122223333,Tax,{start},{_stamp(moment + timedelta(days=28))},"
                "AmazonEC2,,,,USD,,1234.56,,\n"
            )
        moment += step
    return out.getvalue().encode()


MINUTE_NODES = ("gpu-a01", "gpu-a02")
HOUR_NODES = tuple(f"gpu-{n:03d}" for n in range(100))
CUR_NODES = tuple("gpu-a02" if n == 1 else f"i-0a1b2c3d4e5f{n:05d}" for n in range(16))


def contract(nodes: tuple[str, ...] = MINUTE_NODES, rate: int = 2_500_000) -> Contract:
    clock = YEAR + timedelta(hours=6)  # accepted six hours into the first day
    return Contract(
        clock_start=int(clock.timestamp()),
        term_end=int((YEAR + timedelta(days=365)).timestamp()),
        rate=rate,
        fees=0,
        egress=1_000_000_000,
        outages=[
            Outage(
                "gpu-a02",
                int((YEAR + timedelta(days=40)).timestamp()),
                int((YEAR + timedelta(days=40, hours=5)).timestamp()),
                "incident #1 (S3)",
            ),
            Outage(
                "",
                int((YEAR + timedelta(days=200)).timestamp()),
                int((YEAR + timedelta(days=200, hours=2)).timestamp()),
                "incident #2 (S1)",
            ),
        ],
        nodes=nodes,  # every line is checked against the allocation's nodes and their 8 GPUs
        node_gpus=8,
    )


def run(name: str, data: bytes, mapping: Mapping, nodes: tuple[str, ...]) -> None:
    began, cpu = time.perf_counter(), time.process_time()
    result = reconcile(read_lines(open_table(data), mapping), contract(nodes), max_listed=50_000)
    seconds = time.perf_counter() - began
    cpu = time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rules = ", ".join(f"{k} {v:,}" for k, v in sorted(result.by_rule.items()))
    print(
        f"{name}: {result.lines:,} lines, {len(data) / 1e6:.0f} MB, {seconds:.2f} s "
        f"(CPU {cpu:.2f} s) "
        f"({result.lines / seconds:,.0f} lines/s), billed {result.billed_total / 1e6:,.2f}, "
        f"allowed {result.allowed_total / 1e6:,.2f}; differences: {rules}; "
        f"peak RSS {peak_mb:.0f} MB"
    )


def run_cur(data: bytes) -> None:
    """Through the profile, as an upload of a CUR 2.0 export is read: recognise, classify (the
    tax lines are listed, never priced), convert instance-hours to GPU-hours, reconcile."""
    began, cpu = time.perf_counter(), time.process_time()
    bill = read_bill(data, name="cur.csv")
    result = reconcile(iter(bill.lines), contract(CUR_NODES, rate=12_290_000), max_listed=50_000)
    seconds = time.perf_counter() - began
    cpu = time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rules = ", ".join(f"{k} {v:,}" for k, v in sorted(result.by_rule.items()))
    lines = len(bill.lines) + len(bill.other)
    print(
        f"CUR 2.0 ({bill.proposal.profile.name}), 16 instances: {lines:,} lines "
        f"({len(bill.other)} tax), {len(data) / 1e6:.0f} MB, {seconds:.2f} s (CPU {cpu:.2f} s), "
        f"errors {len(bill.errors)}, questions {len(bill.questions)}; differences: {rules}; "
        f"peak RSS {peak_mb:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=["minute", "hour", "cur", "all"], default="all")
    args = parser.parse_args()
    if args.shape in ("minute", "all"):
        run("per-minute, 2 nodes", *minute_file(), MINUTE_NODES)
    if args.shape in ("hour", "all"):
        run("per-hour, 100 nodes", *hour_file(), HOUR_NODES)
    if args.shape in ("cur", "all"):
        run_cur(cur_file())


if __name__ == "__main__":
    main()
