"""The hand-over baseline section of the annex, from a snapshot (no database)."""

from __future__ import annotations

from contracts.annex.baseline import baseline_section


def _snapshot() -> dict:
    sizes = [1 << i for i in range(20, 34)]
    whole = {
        "collective": "all_reduce",
        "node": "whole allocation",
        "ranks": 16,
        "command": "mpirun -np 16 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1",
        "nccl_version": "2.21.5",
        "large_message_busbw_min_gbps": 372.4,
        "busbw_by_size": [[s, min(380.0, s / (1 << 22) * 9.0)] for s in sizes],
    }
    per_node = [
        {"collective": "all_reduce", "node": node, "large_message_busbw_min_gbps": bw}
        for node, bw in (("gpu-a", 450.1), ("gpu-b", 401.7), ("gpu-c", 447.9))
    ]
    return {
        "fixture": {"spec": {"thresholds": {"busbw_gbps": {"all_reduce": 368.0}}}},
        "acceptance": {"kind": "accepted", "by": "alice", "at": "2027-01-30T09:00:00+00:00"},
        "baseline": {"nccl": [whole, *per_node], "versions": {"nccl": ["2.21.5"]}},
    }


def test_the_chart_draws_the_agreed_floor_and_the_summary_names_the_weakest_node():
    section = baseline_section(_snapshot())
    assert section is not None
    blocks = {block.get("heading"): block for block in section["blocks"]}
    svg = next(b["svg"] for b in section["blocks"] if b["type"] == "svg")
    assert "stroke-dasharray" in svg  # the 368 GB/s floor
    summary = blocks["Per node and node subset: busbw at large sizes (GB/s)"]
    assert summary["rows"] == [["all_reduce", 3, "401.7 (gpu-b)", "447.9", "450.1"]]
    commands = blocks["Exact commands"]["rows"]
    assert commands == [
        ("all_reduce", "mpirun -np 16 ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1")
    ]


def test_no_decision_and_no_baseline_means_no_section():
    assert baseline_section({"acceptance": None, "baseline": None}) is None
