"""A 0 GB/s row at a large size (a dead or stalled link) reads the same everywhere: the burn-in
gate fails on it, the hand-over baseline keeps it, and a recovery run showing it is refused."""

from __future__ import annotations

from typing import Any

from check_builders import by_name, item, nccl_text

from engine.evidence import burnin_report
from engine.evidence.checks import run_checks
from engine.evidence.large_message import LARGE_MESSAGE_BYTES
from engine.evidence.parsers import parse_evidence, to_json
from engine.failures.recovery_nccl import NcclShape, check_nccl
from engine.formatting import data_size

STALLED_SIZE = 2 * LARGE_MESSAGE_BYTES
RESERVATION = NcclShape(ranks=16, nodes=2, gpus_per_node=8, hosts=("gpu-a01", "gpu-a02"))


def _stalled(text: str) -> str:
    """The same sweep with the row at STALLED_SIZE printing 0.00 busbw on both sides."""
    lines = []
    for line in text.split("\n"):
        cells = line.split()
        if cells and cells[0] == str(STALLED_SIZE):
            cells[6:8] = cells[10:12] = ["0.00", "0.00"]
            line = "  ".join(cells)
        lines.append(line)
    return "\n".join(lines)


def _files(text: str) -> list[dict[str, Any]]:
    parsed = to_json(parse_evidence(text.encode(), kind="nccl-tests"))
    return [{"id": 1, "name": "nccl.txt", "sha256": "a" * 64, "node": "", "kind": "nccl-tests",
             "parsed": parsed}]  # fmt: skip


def _baseline_figure(spec: dict[str, Any], text: str) -> float:
    snapshot = burnin_report.baseline_snapshot(_files(text), spec, header={})
    return snapshot["nccl"][0]["large_message_busbw_min_gbps"]


def test_the_gate_fails_at_the_stalled_size(spec):
    results = run_checks(spec, [item(_stalled(nccl_text()))])
    check = by_name(results, "nccl-tests all_reduce: large-message busbw")[0]
    assert check.status == "fail"
    assert f"at {data_size(STALLED_SIZE)}" in check.measured


def test_the_baseline_keeps_the_stalled_figure_that_recovery_reads(spec):
    healthy, stalled = nccl_text(), _stalled(nccl_text())
    kept = _baseline_figure(spec, stalled)
    assert kept < _baseline_figure(spec, healthy)

    against = burnin_report.baseline_snapshot(_files(healthy), spec, header={})
    status, measured, _ = check_nccl([_files(stalled)[0]["parsed"]], against, 5.0, RESERVATION)
    assert status == "fail"
    assert f"all_reduce: {kept:.1f} GB/s" in measured
    assert f"bus bandwidth {kept:.1f} GB/s is below the floor" in measured


def test_a_baseline_kept_with_a_dead_link_is_still_compared(spec):
    stalled = _stalled(nccl_text())
    against = burnin_report.baseline_snapshot(_files(stalled), spec, header={})
    kept = against["nccl"][0]["large_message_busbw_min_gbps"]
    status, measured, expected = check_nccl(
        [_files(nccl_text())[0]["parsed"]], against, 5.0, RESERVATION
    )
    assert status == "pass"
    assert f"baseline {kept:.1f}" in measured and f"baseline {kept:.1f}" in expected
