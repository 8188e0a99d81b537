"""Stamps without a year (syslog, glog) in a run that crossed New Year, or read in January."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from engine.failures import analyse
from engine.failures.isolated import Job, analyse_isolated
from engine.failures.model import SourceFile
from engine.failures.timestamps import LogYear, log_year, parse_line_time

XID = (
    "Dec 31 23:59:50 node-1 kernel: NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', "
    "name=<unknown>, GPU has fallen off the bus."
)
TIMEOUT = (
    "[rank1]:[E101 00:00:20.000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, "
    "Timeout(ms)=30000) ran for 30010 milliseconds before timing out."
)
CANCEL = "slurmstepd: error: *** STEP 99.0 ON node-1 CANCELLED AT 2027-01-01T00:01:00 ***"


def at(line: str, year: LogYear) -> datetime | None:
    return parse_line_time(line, year=year, tz=UTC)


def test_a_syslog_read_in_january_puts_december_in_the_year_before() -> None:
    january = log_year([XID], now=datetime(2027, 1, 2, 9, tzinfo=UTC))
    assert at(XID, january) == datetime(2026, 12, 31, 23, 59, 50, tzinfo=UTC)
    assert at("Jan  1 00:00:03 node-1 kernel: x", january) == datetime(
        2027, 1, 1, 0, 0, 3, tzinfo=UTC
    )


def test_a_yearless_stamp_is_never_placed_after_the_clock() -> None:
    december = log_year([], now=datetime(2026, 12, 7, tzinfo=UTC))
    assert at(XID, december) == datetime(2025, 12, 31, 23, 59, 50, tzinfo=UTC)
    assert at("Dec  7 10:00:00 node-1 kernel: x", december) == datetime(2026, 12, 7, 10, tzinfo=UTC)


def test_a_date_the_logs_wrote_places_both_sides_of_new_year() -> None:
    seen = log_year(["no date here", f"step 10\n{CANCEL}\n"], now=datetime(2027, 6, 1, tzinfo=UTC))
    assert seen == LogYear(datetime(2027, 1, 1).date(), seen=True)
    assert at(XID, seen) == datetime(2026, 12, 31, 23, 59, 50, tzinfo=UTC)
    assert at(TIMEOUT, seen) == datetime(2027, 1, 1, 0, 0, 20, tzinfo=UTC)


def test_the_xid_before_midnight_comes_before_the_timeout_after_it() -> None:
    result = analyse(
        [
            SourceFile("kernel/node-1/syslog", (XID + "\n").encode()),
            SourceFile("node-1.log", (TIMEOUT + "\n").encode()),
            SourceFile("slurm-99.out", (CANCEL + "\n").encode()),
        ]
    )
    [xid] = [e for e in result.timeline if e.kind == "xid"]
    [timeout] = [e for e in result.timeline if e.kind == "nccl_timeout"]
    assert xid.time_utc == datetime(2026, 12, 31, 23, 59, 50, tzinfo=UTC)
    assert timeout.time_utc == datetime(2027, 1, 1, 0, 0, 20, tzinfo=UTC)
    first = result.first_failure
    assert first is not None and first.kind == "xid"


def test_the_isolated_analysis_dates_a_yearless_log_by_when_it_arrived(tmp_path: Path) -> None:
    """A December syslog uploaded on 2 January and analysed again in June still reads as the
    December before the upload, not the one before the re-analysis."""
    log = tmp_path / "syslog"
    log.write_text(XID + "\n")
    job = Job(
        files=[(str(log), "kernel/node-1/syslog")],
        rank_map=None,
        world_size=None,
        memory_bytes=2 * 1024**3,
        received=datetime(2027, 1, 2, 9, tzinfo=UTC),
    )
    [xid] = [e for e in analyse_isolated(job, seconds=60)["timeline"] if e["kind"] == "xid"]
    assert xid["time"] == "2026-12-31T23:59:50+00:00"
