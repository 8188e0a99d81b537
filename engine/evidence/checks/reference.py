"""A fixture's reference run, checked before the fixture is sent: the buyer's CPU dry run
(`fixture_allreduce.py --spawn N --backend gloo`, as the bundle's README documents) or a run on
another cluster attached as a pre-award baseline.

The reference is held to the fixture's own rules at its own size: every rank 0..N-1 once, the
rank sum n(n-1)/2 in every element, the agreed count and dtype. A dry run must be on the CPU
and a cluster run on GPUs: the two prove different things and are never mistaken for each
other.
"""

from __future__ import annotations

import dataclasses

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem
from engine.evidence.checks.spec import Spec
from engine.evidence.checks.workload import check_fixture
from engine.evidence.parsers.fixture_result import FixtureResult

CPU_DRY_RUN = "cpu_dry_run"
OTHER_CLUSTER = "other_cluster"

# The burn-in's own checks that say nothing about a reference run at another size or place.
_NOT_FOR_REFERENCE = {
    "fixture-result: device",
    "fixture-result: NCCL version",
    "fixture-result: CUDA version",
    "fixture-result: container image",
}


def check_reference(spec: Spec, item: EvidenceItem, *, source: str) -> list[CheckResult]:
    parsed = item.parsed
    if not isinstance(parsed, FixtureResult) or not parsed.records:
        return [
            make(
                item,
                name="reference: fixture output",
                group="reference",
                status="fail",
                measured=item.kind,
                expected="the fixture's JSON lines (fixture-result)",
                message="This is not the fixture's output: upload the JSON lines that "
                "fixture_allreduce.py prints, one per worker.",
                mandatory=True,
            )
        ]
    records = parsed.records
    on_cpu = [r for r in records if r.on_cpu]
    want_cpu = source == CPU_DRY_RUN
    wrong = [r for r in records if r.on_cpu != want_cpu]
    out: list[CheckResult] = []
    if wrong:
        r = wrong[0]
        message = (
            f"Rank {r.rank} ran on {r.device}: a CPU dry run has every worker on the CPU. "
            "A run on GPUs is a reference from another cluster; attach it as that."
            if want_cpu
            else f"Rank {r.rank} ran on the CPU: that is a dry run, not a cluster's reference. "
            "Attach it as the CPU dry run."
        )
        out.append(
            make(
                item,
                name="reference: device",
                group="reference",
                status="fail",
                measured=f"{len(on_cpu)} of {len(records)} ranks on the CPU",
                expected="every rank on the CPU" if want_cpu else "every rank on a GPU",
                message=message,
                mandatory=True,
                line=r.line,
            )
        )
    hosts = {r.host for r in records}
    world = max(r.world_size for r in records)
    per_host = max(world // max(len(hosts), 1), 1)
    # The reference's own shape: its hosts and world size, the fixture's tensor and dtype.
    shape = dataclasses.replace(
        spec, nodes=len(hosts), gpus_per_node=per_host, workers_per_gpu=1, nccl_version=None
    )
    for result in check_fixture(shape, [item], mandatory=True):
        if result.name in _NOT_FOR_REFERENCE:
            continue
        out.append(
            dataclasses.replace(
                result, name=result.name.replace("fixture-result:", "reference:"), group="reference"
            )
        )
    return out


def reference_summary(parsed: FixtureResult) -> dict[str, object]:
    """What the page says about the run: its size, hosts and the software it ran with."""
    records = parsed.records
    return {
        "ranks": len(records),
        "world_size": max(r.world_size for r in records),
        "hosts": sorted({r.host for r in records}),
        "devices": sorted({r.device for r in records}),
        "torch": sorted({r.torch_version for r in records}),
        "nccl": sorted({r.nccl_version for r in records if r.nccl_version}),
        "cuda": sorted({r.cuda_version for r in records if r.cuda_version}),
        "elapsed_s": max(r.elapsed_s for r in records),
    }
