"""DCGM diagnostics must have run on every GPU of every node, not only the ones it happened to
see: a `dcgmi diag -r 3` on one of eight GPUs prints "Pass" for every test all the same.

The GPUs a run covered are the device ids DCGM listed (in GPU index order) and the GPU indices
its per-GPU results name. The node's GPU count is the fixture's GPUs per node, or what
nvidia-smi lists on that node when it lists more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.dcgmi_diag import DcgmiResult
from engine.evidence.parsers.nvidia_smi_query import GpuQueryResult

NAME = "dcgmi: every GPU diagnosed"


def gpu_counts(*, items: Sequence[EvidenceItem]) -> dict[str, int]:
    """GPUs nvidia-smi lists per labelled node (the largest count where a node has two files)."""
    counts: dict[str, int] = {}
    for item in items:
        if item.node and isinstance(item.parsed, GpuQueryResult):
            counts[item.node] = max(counts.get(item.node, 0), len(item.parsed.gpus))
    return counts


def covered_gpus(diag: DcgmiResult) -> set[int]:
    indices = {int(gpu) for test in diag.tests for gpu in test.gpus if gpu.isdecimal()}
    return indices | set(range(len(diag.gpu_device_ids)))


def _indices(values: list[int], limit: int = 16) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" (+{len(values) - limit} more)" if len(values) > limit else "")


def check_dcgm_coverage(
    *, spec: Spec, items: Sequence[EvidenceItem], counts: Mapping[str, int], mandatory: bool
) -> list[CheckResult]:
    """One result per dcgmi diag file: fail naming the node and the GPU indices it left out."""
    return [
        _coverage(spec, item, counts, mandatory)
        for item in items
        if isinstance(item.parsed, DcgmiResult)
    ]


def _coverage(
    spec: Spec, item: EvidenceItem, counts: Mapping[str, int], mandatory: bool
) -> CheckResult:
    diag = item.parsed
    assert isinstance(diag, DcgmiResult)
    where = item.node or "the allocation"
    expected = max(spec.gpus_per_node, counts.get(item.node or "", 0))
    covered = covered_gpus(diag)
    wanted = f"all {expected} GPUs (0..{expected - 1}) of the node"
    if not covered:
        return make(
            item,
            name=NAME,
            group="dcgmi",
            status="inconclusive",
            measured="GPUs not shown",
            expected=wanted,
            message=f"dcgmi diag on {where} names neither the GPU device ids it detected nor "
            "per-GPU results, so which GPUs it diagnosed cannot be told. Upload the full output "
            "(with its Metadata section) or `dcgmi diag -j`.",
            mandatory=mandatory,
        )
    missing = [i for i in range(expected) if i not in covered]
    level = f" at level {diag.level}" if diag.level else ""
    return make(
        item,
        name=NAME,
        group="dcgmi",
        status="fail" if missing else "pass",
        measured=f"{len(covered & set(range(expected)))} of {expected} GPUs"
        + (f"; missing GPU {_indices(missing)}" if missing else ""),
        expected=wanted,
        message=(
            f"dcgmi diag on {where} covered {expected - len(missing)} of its {expected} GPUs"
            f"{level}; GPU {_indices(missing)} were not diagnosed. Run `dcgmi diag -r "
            f"{spec.thresholds.get('dcgm_level') or 3}` on every GPU of {where}."
            if missing
            else f"dcgmi diag on {where} covered all {expected} GPUs{level}."
        ),
        mandatory=mandatory,
    )
