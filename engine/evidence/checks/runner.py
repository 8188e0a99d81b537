"""Run every check a fixture spec calls for over a set of evidence items."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.domain import EVIDENCE_ALTERNATIVES
from engine.evidence.checks.dcgm_coverage import check_dcgm_coverage, gpu_counts
from engine.evidence.checks.findings import Explanation, evidence_findings, finding_results
from engine.evidence.checks.gpu_monitor import check_gpu_monitor
from engine.evidence.checks.hardware import (
    check_dcgmi,
    check_gpu_query,
    check_ibstat,
    check_topology,
)
from engine.evidence.checks.ib_counters import check_ib_counters
from engine.evidence.checks.model import GROUP_BY_KIND, CheckResult, EvidenceItem
from engine.evidence.checks.nccl import check_run, check_subsets, runs_of
from engine.evidence.checks.probes import check_probes
from engine.evidence.checks.spec import Spec, load_spec
from engine.evidence.checks.versions import check_backend, check_versions
from engine.evidence.checks.workload import check_fixture, check_step_times
from engine.evidence.parsers.nvidia_smi_query import GpuQueryResult

PerItemCheck = Callable[[Spec, EvidenceItem, bool], list[CheckResult]]


PER_NODE: dict[str, PerItemCheck] = {
    "nvidia-smi-topo": check_topology,
    "nvidia-smi-query": check_gpu_query,
    "dcgmi-diag": check_dcgmi,
    "ibstat": check_ibstat,
}


def _result(
    *,
    name: str,
    group: str,
    status: str,
    measured: str,
    expected: str,
    message: str,
    mandatory: bool,
    ref: str | None = None,
    line: int | None = None,
    node: str | None = None,
) -> CheckResult:
    return CheckResult(
        name=name,
        group=group,
        status=status,  # type: ignore[arg-type]
        measured=measured,
        expected=expected,
        evidence_ref=ref,
        line=line,
        mandatory=mandatory,
        message=message,
        node=node,
    )


def is_whole_allocation(item: EvidenceItem, spec: Spec) -> bool:
    """A run over the whole allocation (not a node subset): unlabelled, or all ranks present."""
    if item.node is None:
        return True
    parsed_runs = runs_of(item)
    return bool(parsed_runs) and parsed_runs[0].ranks == spec.world_size


def _unreadable(item: EvidenceItem, *, mandatory: bool) -> CheckResult:
    group = GROUP_BY_KIND.get(item.kind, "evidence")
    # A file whose kind could not be recognised is named by its file, not as "unknown".
    what = item.kind if item.kind in GROUP_BY_KIND else item.ref
    return _result(
        name=f"{what}: readable",
        group=group,
        status="inconclusive",
        measured="parse error",
        expected=f"a readable {item.kind} file"
        if item.kind in GROUP_BY_KIND
        else "a file of a kind the checks read",
        message=f"{item.ref} could not be read: {item.error or 'unknown error'}",
        mandatory=mandatory or item.kind not in GROUP_BY_KIND,
        ref=item.ref,
        line=item.error_line,
        node=item.node,
    )


def _missing(kind: str) -> CheckResult:
    return _result(
        name=f"{kind}: present",
        group=GROUP_BY_KIND.get(kind, "evidence"),
        status="missing",
        measured="no file",
        expected=f"{kind} evidence",
        message=f"No {kind} evidence was uploaded.",
        mandatory=True,
    )


def _by_kind(
    spec: Spec, items: Sequence[EvidenceItem]
) -> tuple[dict[str, list[EvidenceItem]], list[CheckResult]]:
    """The readable items by kind, and a result for each unreadable item and each missing kind.
    An unreadable file still counts as present: it is inconclusive, not missing."""
    required = set(spec.required_evidence)
    stands_in = {alt: kind for kind, alts in EVIDENCE_ALTERNATIVES.items() for alt in alts}
    results: list[CheckResult] = []
    by_kind: dict[str, list[EvidenceItem]] = {}
    for item in items:
        if item.parsed is None:
            needed = item.kind in required or stands_in.get(item.kind) in required
            results.append(_unreadable(item, mandatory=needed))
            by_kind.setdefault(item.kind, [])
            continue
        by_kind.setdefault(item.kind, []).append(item)
    results.extend(
        _missing(kind)
        for kind in spec.required_evidence
        if kind not in by_kind
        and not any(alt in by_kind for alt in EVIDENCE_ALTERNATIVES.get(kind, ()))
    )
    return by_kind, results


def run_checks(
    raw_spec: Mapping[str, Any] | Spec,
    items: Sequence[EvidenceItem],
    explanations: Mapping[str, Explanation] | None = None,
) -> list[CheckResult]:
    """Every check the spec calls for, then the findings on the evidence as a whole (each a
    blocking row in its evidence's group unless explained for the same files)."""
    spec = raw_spec if isinstance(raw_spec, Spec) else load_spec(raw_spec)
    required = set(spec.required_evidence)

    def mandatory(kind: str) -> bool:
        return kind in required

    by_kind, results = _by_kind(spec, items)
    results.extend(
        check_fixture(spec, by_kind.get("fixture-result", []), mandatory("fixture-result"))
    )
    results.extend(_nccl_checks(spec, by_kind.get("nccl-tests", []), mandatory("nccl-tests")))
    for kind, check in PER_NODE.items():
        kind_items = by_kind.get(kind, [])
        for item in kind_items:
            results.extend(check(spec, item, mandatory(kind)))
        results.extend(_coverage(spec, kind, kind_items, mandatory(kind)))
    results.extend(_counter_checks(spec, by_kind, mandatory("perfquery")))
    results.extend(_depth_checks(spec, by_kind, mandatory))
    results.extend(check_step_times(spec, by_kind.get("step-times", []), mandatory("step-times")))
    results.extend(check_probes(spec=spec, by_kind=by_kind))
    results.extend(
        check_gpu_monitor(spec=spec, by_kind=by_kind, mandatory=mandatory("nvidia-smi-dmon"))
    )
    results.extend(finding_results(evidence_findings(spec, items), explanations or {}))
    return results


def _counter_checks(
    spec: Spec, by_kind: dict[str, list[EvidenceItem]], mandatory: bool
) -> list[CheckResult]:
    """IB port error counters, per node and kind. Fabric-wide ibqueryerrors output reads every
    node's ports, so perfquery is then not needed from each node."""
    perfquery, fabric = by_kind.get("perfquery", []), by_kind.get("ibqueryerrors", [])
    results = check_ib_counters(spec=spec, items=[*perfquery, *fabric], mandatory=mandatory)
    if not fabric:
        results.extend(_coverage(spec, "perfquery", perfquery, mandatory))
    return results


def _depth_checks(
    spec: Spec, by_kind: dict[str, list[EvidenceItem]], mandatory: Callable[[str], bool]
) -> list[CheckResult]:
    """Checks that read one kind against another: DCGM on every GPU nvidia-smi lists, the
    versions each node ran, the collective backend NCCL assigned."""
    diag = by_kind.get("dcgmi-diag", [])
    counts = gpu_counts(items=by_kind.get("nvidia-smi-query", []))
    nccl = by_kind.get("nccl-tests", [])
    return [
        *check_dcgm_coverage(
            spec=spec, items=diag, counts=counts, mandatory=mandatory("dcgmi-diag")
        ),
        *check_versions(spec=spec, by_kind=by_kind, mandatory=mandatory("fixture-result")),
        *check_backend(spec=spec, items=nccl, mandatory=mandatory("nccl-tests")),
    ]


def _covers_allocation(spec: Spec, kind: str, item: EvidenceItem) -> bool:
    """An unlabelled file that shows the whole allocation: a GPU query listing every GPU
    (e.g. run under srun). Other per-node outputs carry no host name to tell nodes apart."""
    parsed = item.parsed
    return (
        kind == "nvidia-smi-query"
        and isinstance(parsed, GpuQueryResult)
        and len(parsed.gpus) == spec.gpus_per_node * spec.nodes
    )


def _coverage(
    spec: Spec, kind: str, items: list[EvidenceItem], mandatory: bool
) -> list[CheckResult]:
    """Per-node evidence must come from every node of the allocation, each file labelled."""
    if not items or spec.nodes <= 1:
        return []
    if any(i.node is None and _covers_allocation(spec, kind, i) for i in items):
        return []
    nodes = sorted({n for i in items if i.node is not None for n in i.nodes})
    unlabelled = [i for i in items if i.node is None]
    seen = f" ({', '.join(nodes)})" if nodes else ""
    if len(nodes) >= spec.nodes:
        return [
            _result(
                name=f"{kind}: every node",
                group=GROUP_BY_KIND[kind],
                status="pass",
                measured=f"{len(nodes)} of {spec.nodes} nodes{seen}",
                expected=f"one file per node ({spec.nodes} nodes)",
                message=f"{kind} evidence covers all {spec.nodes} nodes{seen}.",
                mandatory=mandatory,
            )
        ]
    missing = spec.nodes - len(nodes)
    message = (
        f"{kind} evidence covers {len(nodes)} of the {spec.nodes} nodes"
        + (f" (seen: {', '.join(nodes)})" if nodes else "")
        + f"; {missing} node(s) have none."
    )
    if unlabelled:
        message += (
            f" {len(unlabelled)} file(s) carry no node label ({unlabelled[0].ref}"
            + (", ..." if len(unlabelled) > 1 else "")
            + "), so they cannot count for a node: upload each with the node it came from."
        )
    return [
        _result(
            name=f"{kind}: every node",
            group=GROUP_BY_KIND[kind],
            status="missing",
            measured=f"{len(nodes)} of {spec.nodes} nodes{seen}"
            + (f", {len(unlabelled)} unlabelled file(s)" if unlabelled else ""),
            expected=f"one file per node ({spec.nodes} nodes)",
            message=message,
            mandatory=mandatory,
            ref=unlabelled[0].ref if unlabelled else None,
        )
    ]


def _nccl_checks(spec: Spec, items: list[EvidenceItem], mandatory: bool) -> list[CheckResult]:
    results: list[CheckResult] = []
    whole = [i for i in items if is_whole_allocation(i, spec)]
    subsets = [i for i in items if i not in whole]
    seen: set[str] = set()
    for item in whole:
        for run in runs_of(item):
            results.extend(check_run(spec, item, run, mandatory))
            if run.collective:
                seen.add(run.collective)
    if items or mandatory:
        for coll in spec.collectives:
            if coll not in seen:
                results.append(
                    _result(
                        name=f"nccl-tests {coll}: present",
                        group="nccl-tests",
                        status="missing",
                        measured="no whole-allocation run",
                        expected=f"a run of {coll} on all ranks",
                        message=f"No whole-allocation nccl-tests run of {coll} was uploaded.",
                        mandatory=mandatory,
                    )
                )
    if subsets:
        results.extend(check_subsets(spec, subsets, mandatory=spec.bisection))
    elif spec.bisection and items:
        results.append(
            _result(
                name="node subsets: slow node",
                group="node-subsets",
                status="missing",
                measured="no node-subset runs",
                expected="nccl-tests runs on node pairs/groups",
                message="Bisection was agreed but no node-subset nccl-tests runs were uploaded.",
                mandatory=False,
            )
        )
    return results
