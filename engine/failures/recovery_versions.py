"""Recovery criterion 2, the runtime half: each node of the recovery run against the runtime the
hand-over baseline froze for it (`node_versions`, engine/evidence/runtime_versions.py).

A repaired node that comes back on another CUDA runtime (a reimaged node with a newer
container, an older driver stack) can match the bandwidth and still break the buyer's jobs, so
a different CUDA version fails, naming the node. A node the baseline does not list (a
replacement) is held to the CUDA every burn-in node ran, when they all ran one; against the
contracted baseline, at the precision the contract names ("12.6" is met by 12.6.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.evidence.checks.runtime import same_version
from engine.evidence.runtime_versions import node_versions


def _reference(baseline: Mapping[str, Any], host: str) -> tuple[list[str], str]:
    per_node = baseline.get("node_versions") or {}
    own = (per_node.get(host) or {}).get("cuda") or []
    if own:
        return [str(v) for v in own], f"{host} ran"
    everywhere = (baseline.get("versions") or {}).get("cuda") or []
    if len(everywhere) == 1:
        whose = "the contract names" if baseline.get("source") == "contracted" else "burn-in ran"
        return [str(everywhere[0])], whose
    return [], ""


def cuda_problems(
    *, parsed: Sequence[Mapping[str, Any]], baseline: Mapping[str, Any]
) -> tuple[list[str], list[str]]:
    """(problems, not comparable): one problem per node whose CUDA differs from the baseline's,
    and what cannot be compared because the baseline (frozen before it was kept) lacks it."""
    seen = node_versions(files=[{"kind": "nccl-tests", "parsed": doc} for doc in parsed])
    problems: list[str] = []
    unknown: list[str] = []  # hosts
    for host, versions in seen.items():
        got = versions.get("cuda") or []
        if not got:
            continue
        want, whose = _reference(baseline, host)
        if not want:
            unknown.append(host)
        elif not all(any(same_version(w, g) for w in want) for g in got):
            problems.append(f"{host}: CUDA {', '.join(got)}; {whose} CUDA {', '.join(want)}")
    if unknown:
        return problems, [f"CUDA version on {', '.join(unknown)} (the baseline does not keep it)"]
    return problems, []
