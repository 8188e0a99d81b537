"""Scenario bundles: the initiating rank and owner are named, the cascade is grouped."""

from __future__ import annotations

import json

import pytest

from engine.failures import SourceFile, analyse, parse_rank_map
from engine.failures.synthetic import Scenario, cascade, flight_recorder


@pytest.fixture(scope="module")
def xid_512():
    return analyse(cascade(Scenario(ranks=512, culprit=137)), year=2024)


def test_xid_on_rank_137_beats_511_timeouts_and_the_launcher_root_cause(xid_512) -> None:
    a = xid_512
    assert (a.initiating_rank, a.initiating_node) == (137, "node-17")
    assert a.first_failure.kind == "xid" and a.first_failure.detail["xid"] == 79
    assert a.confidence == "high"
    assert a.suggested_owner == "provider"
    assert len(a.secondary_ranks) == 511 and 137 not in a.secondary_ranks
    timeouts = next(g for g in a.secondaries if g.kind == "nccl_timeout")
    assert len(timeouts.ranks) == 511 and timeouts.cause == "collective 4242"
    assert a.launcher_root_cause is not None and a.launcher_root_cause.rank == 0
    assert any("first observed failure" in r and "rank 0" in r for r in a.reasons)
    assert a.summary().startswith("rank 137 on node-17: xid (1 initiating, 511 secondary")
    assert a.missing_ranks == [] and a.world_size == 512


def test_the_chain_orders_xid_cuda_then_consequences_with_file_and_line(xid_512) -> None:
    chain = xid_512.chain
    assert [e.kind for e in chain[:3]] == ["xid", "cuda_error", "cuda_error"]
    assert chain[0].source == "kernel/node-17/dmesg.log" and chain[0].line_no == 2
    assert {e.kind for e in chain[3:]} >= {"nccl_timeout", "launcher_summary", "scheduler"}
    times = [e.time_utc for e in chain if e.time_utc]
    assert times == sorted(times)


def test_to_json_has_the_stable_keys(xid_512) -> None:
    doc = json.loads(json.dumps(xid_512.to_json()))
    first = doc["first_failure"]
    assert {k: first[k] for k in ("rank", "node", "kind", "source", "line")} == {
        "rank": 137, "node": "node-17", "kind": "xid", "source": "kernel/node-17/dmesg.log",
        "line": 2,
    }  # fmt: skip
    assert first["time"] == "2024-05-01T12:00:00.100000+00:00"
    for key in ("secondary_ranks", "missing_ranks", "mismatches", "suggested_owner", "reasons",
                "timeline", "confidence", "chain", "secondaries", "clock_skew"):  # fmt: skip
        assert key in doc
    assert doc["timeline"][0]["kind"] == "xid"


def test_without_the_kernel_log_the_cuda_error_still_names_rank_137() -> None:
    a = analyse(cascade(Scenario(ranks=512, culprit=137, kernel_logs=False)), year=2024)
    assert (a.initiating_rank, a.first_failure.kind) == (137, "cuda_error")
    assert "no kernel log (Xid/ECC) for node-17" in a.missing


def test_xid_maps_to_rank_through_an_explicit_rank_map_with_pci_ids() -> None:
    src = cascade(Scenario(ranks=64, culprit=21, rank_map_file=True))
    a = analyse(src, year=2024)
    assert a.first_failure.kind == "xid" and a.initiating_rank == 21


@pytest.mark.parametrize(
    ("failure", "kind", "owner"),
    [
        ("ib", "nccl_warn_transport", "provider"),
        ("exception", "python_exception", "customer"),
        ("oom", "oom", "undetermined"),
        ("gloo", "oom", "undetermined"),  # host OOM kill; gloo peers report the closed pair
    ],
)
def test_each_failure_family_names_its_rank_and_owner(failure: str, kind: str, owner: str) -> None:
    a = analyse(cascade(Scenario(ranks=64, culprit=21, failure=failure)), year=2024)
    assert (a.initiating_rank, a.initiating_node, a.first_failure.kind) == (21, "node-2", kind)
    assert a.suggested_owner == owner
    assert a.confidence == "high"
    assert len(a.secondary_ranks) == 63


def test_gloo_cascade_groups_closed_connections() -> None:
    a = analyse(cascade(Scenario(ranks=64, culprit=21, failure="gloo")), year=2024)
    gloo = next(g for g in a.secondaries if g.kind == "gloo")
    assert len(gloo.ranks) == 63 and gloo.cause == "connection closed by peer"


def test_a_rank_that_died_silently_is_found_by_who_did_not_complain() -> None:
    a = analyse(cascade(Scenario(ranks=64, culprit=21, failure="silent")), year=2024)
    assert (a.initiating_rank, a.initiating_node) == (21, "node-2")
    assert a.confidence == "low"
    assert any("closed by node-2" in r for r in a.reasons)


def test_clock_skew_is_estimated_and_corrected_before_ordering() -> None:
    # node-2's clock runs 45 s fast: its exception (real 12:00:00) reads 12:00:45, after an IB
    # error on node-5 (real and logged 12:00:10). The shared watchdog timeouts reveal the skew.
    s = Scenario(ranks=64, culprit=21, failure="exception", skew_s={"node-2": 45.0}, rival=44)
    a = analyse(cascade(s), year=2024)
    assert [(k.node, round(k.offset_s), k.applied) for k in a.skew] == [("node-2", 45, True)]
    assert a.initiating_rank == 21
    assert any("clock skew: node-2 is +45.0 s off; corrected" in r for r in a.reasons)


def test_flight_recorder_names_the_rank_that_never_entered_and_the_missing_dump() -> None:
    dumps = flight_recorder(ranks=16, culprit=9, missing=(5,), json_ranks=(1, 2, 3))
    a = analyse(dumps)
    assert a.initiating_rank == 9 and a.first_failure.kind == "collective_desync"
    assert a.first_failure.detail["seq"] == 200 and a.first_failure.detail["behind"]
    assert a.missing_dumps == [5] and "no Flight Recorder dump for rank 5" in a.missing
    assert a.suggested_owner == "customer" and a.confidence == "medium"


def test_flight_recorder_size_mismatch() -> None:
    a = analyse(flight_recorder(ranks=16, culprit=9, mismatch_at=150))
    assert a.first_failure.kind == "collective_mismatch" and a.initiating_rank == 9
    m = a.mismatches[0]
    assert (m.seq, m.field, m.ranks, m.values) == (
        150, "input_sizes", [9], ["[[1024, 1024]]", "[[1024, 512]]"]
    )  # fmt: skip


def test_an_extra_collective_on_one_rank_is_the_minority_ahead() -> None:
    # Rank 0 issued one more all_reduce than the others (as in a real hang).
    def dump_of(rank: int, culprit: int | None):
        files = flight_recorder(ranks=8, entries=3, culprit=culprit)
        return next(f for f in files if f.name.endswith(f"_{rank}"))

    # Everyone completed 1-2; rank 0 alone went on into collective 3.
    dumps = [dump_of(0, None)] + [dump_of(r, r) for r in range(1, 8)]
    a = analyse(dumps)
    assert a.initiating_rank == 0 and "extra collective" in a.first_failure.text


def test_flight_recorder_agrees_with_the_logs_and_a_malicious_dump_is_reported() -> None:
    src = cascade(Scenario(ranks=16, culprit=9, failure="exception"))
    src += flight_recorder(ranks=16, culprit=9, missing=(9,))
    evil = b"cos\nsystem\n(S'touch /tmp/x'\ntR."
    src = [s for s in src if not s.name.endswith("rank_4")]
    from engine.failures import SourceFile

    src.append(SourceFile("fr/nccl_trace_rank_4", b"\x80\x02" + evil))
    a = analyse(src, year=2024)
    assert a.initiating_rank == 9 and a.first_failure.kind == "python_exception"
    assert any("rank 4 refused" in m and "system" in m for m in a.missing)
    assert a.missing_dumps == [4, 9]


def test_refused_bundle_members_are_reported() -> None:
    from engine.failures import SourceFile

    a = analyse([SourceFile("../x", refused="path traversal (..)")])
    assert a.refused == [{"name": "../x", "reason": "path traversal (..)"}]
    assert a.first_failure is None and a.missing == ["../x: refused (path traversal (..))"]


def test_missing_logs_are_listed_by_world_size() -> None:
    src = [s for s in cascade(Scenario(ranks=16, culprit=3)) if s.name != "logs/node-1.log"]
    a = analyse(src, world_size=16, year=2024)
    assert a.missing_ranks == list(range(8, 16))
    assert "no log or dump for rank 8" in a.missing


def test_rank_map_csv_and_json() -> None:
    from failures_helpers import DATA

    csv_map = parse_rank_map((DATA / "rank_map.csv").read_bytes())
    assert csv_map.node_of(3) == "node-a" and csv_map.ranks[3].pci == "5d:00"
    json_map = parse_rank_map((DATA / "rank_map.json").read_bytes())
    assert json_map.node_of(4) == "node-b" and json_map.ranks[1].local_rank == 1


def test_bad_rank_maps_raise_rank_map_error() -> None:
    from engine.failures import RankMapError

    for bad in (b"rank,node\nx,node-1\n", b'{"0": 5}', b"[1, 2", b"rank,node\n"):
        with pytest.raises(RankMapError):
            parse_rank_map(bad)


def _timeout_log(rank: int) -> SourceFile:
    line = (
        f"[rank{rank}]:[E1120 10:30:12.000000 4242 ProcessGroupNCCL.cpp:632] [Rank {rank}] "
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE, "
        "NumelIn=1, NumelOut=1, Timeout(ms)=10000) ran for 10040 milliseconds before timing out."
    )
    return SourceFile(f"logs/rank{rank}.log", line.encode() + b"\n")


def test_a_bundle_missing_most_ranks_names_no_culprit_and_says_what_is_missing() -> None:
    """GIVEN the audit's bundle: one refused pickle, one empty dump, world size 16
    WHEN it is analysed THEN no rank is blamed, nothing claims a timeout, the gap is named."""
    evil = b"\x80\x02cos\nsystem\n(S'true'\ntR."
    src = [SourceFile("fr/nccl_trace_rank_0", evil), SourceFile("fr/nccl_trace_rank_1", b"")]
    a = analyse(src, world_size=16)
    assert a.first_failure is None and a.initiating_rank is None
    assert a.confidence == "low" and a.suggested_owner == "undetermined"
    text = " ".join(a.reasons)
    assert "timed out waiting" not in text
    assert "insufficient evidence" in text and "14 of 16 ranks" in text
    assert "ranks 2–15" in text


def test_one_silent_rank_among_timeouts_is_still_the_suspect() -> None:
    a = analyse([_timeout_log(r) for r in range(8) if r != 5], world_size=8, year=2026)
    assert a.initiating_rank == 5 and a.confidence == "low"
    assert (
        "rank 5 left no record at all while 7 other rank(s) timed out or waited in a collective"
        in a.reasons[0]
    )
