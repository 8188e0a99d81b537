"""Builders for evidence text and a fixture spec, so each check test states only what differs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from engine.evidence.checks import EvidenceItem, evidence_item_from_text

DATA = Path(__file__).resolve().parents[3] / "data" / "evidence"

SPEC = {
    "schema": "clusterbid.fixture/1",
    "name": "two-node test",
    "version": 1,
    "gpu_model": "H200",
    "allocation": {"nodes": 2, "gpus_per_node": 8, "workers_per_gpu": 1},
    "runtime": {
        "driver_version": "560.35.03",
        "cuda_version": "12.6",
        "nccl_version": "2.27.3",
        "transport": "IB",
        "env": {},
    },
    "tests": {
        "allreduce_fixture": {"count": 1048576, "dtype": "int64"},
        "nccl_tests": {
            "collectives": ["all_reduce"],
            "min_bytes": 8,
            "max_bytes": 8589934592,
            "step_factor": 2,
            "datatype": "float",
            "check": 1,
        },
        "bisection": False,
    },
    "thresholds": {
        "large_message_bytes": 1073741824,
        "busbw_gbps": {"all_reduce": 431.0},
        "nvlink_class": "NV18",
        "rail_optimised": True,
        "dcgm_level": 3,
        "dcgm_warn_policy": "fail",
        "ib_rate_gbps": 400,
        "ib_ports_per_node": 8,
        "ecc_uncorrected_max": 0,
        "step_time_tolerance_pct": 5.0,
        "step_time_spread_pct": 10.0,
    },
    "required_evidence": [
        "fixture-result",
        "nccl-tests",
        "nvidia-smi-topo",
        "nvidia-smi-query",
        "dcgmi-diag",
        "ibstat",
        "step-times",
    ],
    "overrides": [],
}


def make_spec():
    return copy.deepcopy(SPEC)


def nccl_text(
    *,
    hosts=("gpu-a01", "gpu-a02"),
    gpn=8,
    peak=462.0,
    coll="all_reduce",
    lo=8,
    hi=8589934592,
    wrong="0",
    oob=0,
    version="2.27.3",
) -> str:
    lines = [
        f"# Collective test starting: {coll}_perf",
        f"# nThread 1 nGpus 1 minBytes {lo} maxBytes {hi} step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    rank = 0
    for host in hosts:
        for d in range(gpn):
            lines.append(
                f"#  Rank {rank:2d} Group  0 Pid {1000 + rank:6d} on {host:>10s} "
                f"device {d:2d} [0000:{16 + d:02x}:00] NVIDIA H200"
            )
            rank += 1
    lines += [
        f"NCCL version {version}+cuda12.6",
        "#",
        "#       size         count      type   redop    root     time   algbw   busbw "
        "#wrong     time   algbw   busbw #wrong",
    ]
    size = lo
    while size <= hi:
        bus = peak * size / (size + (1 << 26))
        lines.append(
            f"{size:12d}  {size // 4:12d}     float     sum      -1    100.0  "
            f"{bus / 1.875:6.2f}  {bus:6.2f}  {wrong:>5s}    100.0  {bus / 1.875:6.2f}  "
            f"{bus:6.2f}  {wrong:>5s}"
        )
        size *= 2
    lines += [f"# Out of bounds values : {oob} OK", "# Avg bus bandwidth    : 120.5", "#"]
    return "\n".join(lines) + "\n"


def item(text: str | bytes, node: str | None = None, ref: str = "upload") -> EvidenceItem:
    return evidence_item_from_text(ref=ref, node=node, text=text)


def data_item(name: str, node: str | None = None) -> EvidenceItem:
    return item((DATA / name).read_bytes(), node=node, ref=name)


def fixture_lines(n: int = 16, override: dict[int, dict] | None = None) -> str:
    override = override or {}
    out = []
    for rank in range(n):
        rec = {
            "rank": rank,
            "world_size": n,
            "host": f"gpu-a0{1 + rank // 8}",
            "local_rank": rank % 8,
            "device": rank % 8,
            "count": 1048576,
            "dtype": "int64",
            "pass": True,
            "min": n * (n - 1) // 2,
            "max": n * (n - 1) // 2,
            "expected": n * (n - 1) // 2,
            "elapsed_s": 0.9,
            "torch_version": "2.5.1",
            "nccl_version": "2.27.3",
            "cuda_version": "12.6",
        }
        rec.update(override.get(rank, {}))
        out.append(json.dumps(rec))
    return "\n".join(out) + "\n"


def step_csv(
    n: int = 16,
    slow: dict[int, float] | None = None,
    *,
    minutes: float = 120.0,
    tail: dict[int, float] | None = None,
) -> str:
    """Ten sampled steps per rank logged over `minutes` of wall time (the timestamp column);
    `slow` adds seconds to every step of a rank, `tail` to two steps in ten of it."""
    slow, tail = slow or {}, tail or {}
    rows = ["rank,node,step,seconds,timestamp"]
    for step in range(10):
        when = 1_764_000_000 + step * minutes * 60 / 9
        for rank in range(n):
            extra = slow.get(rank, 0.0) + (tail.get(rank, 0.0) if step % 5 == 4 else 0.0)
            rows.append(
                f"{rank},gpu-a0{1 + rank // 8},{step},"
                f"{1.0 + extra + (step % 3) * 0.001:.4f},{when:.3f}"
            )
    return "\n".join(rows) + "\n"


def good_items() -> list[EvidenceItem]:
    """A complete, passing evidence set for SPEC (two nodes)."""
    items = [
        item(fixture_lines(), ref="fixture.jsonl"),
        item(nccl_text(), ref="all_reduce.txt"),
        item(step_csv(), ref="steps.csv"),
    ]
    for node in ("gpu-a01", "gpu-a02"):
        items += [
            data_item("nvidia-smi-topo/hgx_h200_8gpu_8nic_tabs_ansi_header.txt", node),
            data_item("nvidia-smi-query/table_wide_8xh200_drv560.txt", node),
            data_item("dcgmi-diag/diag_r3_dcgm3_all_pass.txt", node),
            data_item("ibstat/ibstat_8x400g_ndr_plus_bond_tabs.txt", node),
        ]
    return items


def by_name(results, name):
    found = [r for r in results if r.name == name]
    assert found, f"no check named {name!r}: {[r.name for r in results]}"
    return found
