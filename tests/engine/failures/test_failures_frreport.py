"""The text report of PyTorch's Flight Recorder analyser (`torchfrtrace`), uploaded as a file.

`fr_report/torchfrtrace_rank5_missing.txt` is what `torchfrtrace` (PyTorch 2.6 and later)
prints for an 8-rank job whose rank 5 never called all-reduce #4113 of the default group nor
reduce-scatter #1029 of its tensor-parallel group {4..7}; `torchfrtrace_2.5_rank1_missing.txt`
is PyTorch 2.5's wording (`Not all ranks joining collective 5 at entry 4`, `expected ranks: 2`).
"""

from __future__ import annotations

from failures_helpers import DATA

from engine.failures import Analysis, SourceFile, analyse
from engine.failures.frreport import report_events

REPORTS = DATA / "fr_report"


def _analyse(*files: SourceFile) -> Analysis:
    return analyse(files, year=2025)


def _report(name: str) -> SourceFile:
    return SourceFile(name, (REPORTS / name).read_bytes())


def test_the_missing_rank_of_a_torchfrtrace_report_is_named() -> None:
    result = _analyse(_report("torchfrtrace_rank5_missing.txt"))
    first = result.first_failure
    assert first is not None
    assert (first.kind, result.initiating_rank) == ("collective_desync", 5)
    assert (first.source, first.line_no) == ("torchfrtrace_rank5_missing.txt", 6)
    assert first.detail["seq"] == 4113 and first.detail["pg"] == "0:default_pg"
    assert "rank 5 never joined nccl:all_reduce #4113" in result.summary()
    assert any("torchfrtrace" in r and "7 rank(s) joined it" in r for r in result.reasons)
    assert result.flight_recorder == "desync"


def test_pytorch_2_5_wording_is_read_too() -> None:
    result = _analyse(_report("torchfrtrace_2.5_rank1_missing.txt"))
    assert result.initiating_rank == 1
    assert result.first_failure is not None and result.first_failure.detail["seq"] == 5


def test_a_rank_map_places_the_missing_rank_on_its_node() -> None:
    rank_map = "".join(f"{r},node-{r // 4}\n" for r in range(8)).encode()
    result = _analyse(_report("torchfrtrace_rank5_missing.txt"),
                      SourceFile("rank_map.csv", rank_map))  # fmt: skip
    assert (result.initiating_rank, result.initiating_node) == (5, "node-1")


def test_a_logged_error_with_a_time_still_comes_first() -> None:
    log = (
        "[rank2]:[E304 10:02:40.512873104 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID "
        "0(default_pg) Rank 2] Process group watchdog thread terminated with exception: CUDA "
        "error: an illegal memory access was encountered\n"
    )
    result = _analyse(_report("torchfrtrace_rank5_missing.txt"),
                      SourceFile("node-0.log", log.encode()))  # fmt: skip
    assert result.initiating_rank == 2
    assert any("Flight Recorder / desync evidence points at rank(s) [5]" in r
               for r in result.reasons)  # fmt: skip


def test_when_most_ranks_are_missing_the_few_that_joined_ran_ahead() -> None:
    text = (REPORTS / "torchfrtrace_rank5_missing.txt").read_text()
    text = text.replace("missing ranks: {5}", "missing ranks: {0, 1, 2, 3, 4, 6, 7}", 1)
    events, _ = report_events("r.txt", text)
    default_pg = [e for e in events if e.detail["pg"] == "0:default_pg"]
    assert [(e.rank, e.detail["behind"]) for e in default_pg] == [(5, False)]
    assert "an extra collective" in default_pg[0].detail["cause"]


def test_a_block_cut_before_its_missing_ranks_is_reported_not_skipped() -> None:
    text = "Not all ranks joining collective, sequence number: 4113\ninternal record id: 8226\n"
    result = _analyse(SourceFile("fr.txt", text.encode()))
    assert result.first_failure is None
    assert any("fr.txt: line 1" in m and "missing ranks" in m for m in result.missing)
