"""The runtime each node ran, node by node: CUDA, the OS image, and where Kubernetes schedules
the jobs its version and the worker node spec; then the collective backend NCCL assigned.

The whole-run checks (runtime.py, the NCCL version and driver checks) say that something
differs; these say on which node, which is what a provider has to fix. The CUDA a node ran is
read from the fixture's records (by host) and from NCCL's version banner in the nccl-tests
output (by host with NCCL_DEBUG=INFO, else the run's banner for every host of the run).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.runtime import same_version
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.fixture_result import FixtureResult
from engine.evidence.parsers.nccl_model import NcclTestsResult

GROUP = "runtime"
PerNode = dict[str, set[str]]


def _result(
    *, name: str, status: Status, measured: str, expected: str, message: str, mandatory: bool,
    item: EvidenceItem | None, node: str | None = None,
) -> CheckResult:  # fmt: skip
    return CheckResult(
        name=name,
        group=GROUP,
        status=status,
        measured=measured,
        expected=expected,
        evidence_ref=item.ref if item else None,
        line=None,
        mandatory=mandatory,
        message=message,
        node=node,
    )


def nccl_runs(items: Iterable[EvidenceItem]) -> list[tuple[EvidenceItem, NcclTestsResult]]:
    return [
        (item, run)
        for item in items
        if isinstance(item.parsed, NcclTestsResult)
        for run in (item.parsed, *item.parsed.runs)
    ]


def cuda_by_node(*, items: Iterable[EvidenceItem]) -> PerNode:
    """The CUDA versions each host shows, from fixture records and NCCL version banners."""
    seen: PerNode = {}
    for item in items:
        if isinstance(item.parsed, FixtureResult):
            for r in item.parsed.records:
                if r.cuda_version and not r.on_cpu:
                    seen.setdefault(r.host, set()).add(r.cuda_version)
    for _, run in nccl_runs(items):
        for host, cuda in run.host_cuda.items():
            seen.setdefault(host, set()).add(cuda)
        if run.cuda_version and not run.host_cuda:
            for host in run.nodes:
                seen.setdefault(host, set()).add(run.cuda_version)
    return seen


def _records_field(items: Iterable[EvidenceItem], key: str) -> PerNode:
    seen: PerNode = {}
    for item in items:
        if isinstance(item.parsed, FixtureResult):
            for r in item.parsed.records:
                value = getattr(r, key)
                if value:
                    seen.setdefault(r.host, set()).add(str(value))
    return seen


def _differing(seen: PerNode, agreed: str, *, versioned: bool) -> dict[str, list[str]]:
    def ok(value: str) -> bool:
        return same_version(agreed, value) if versioned else value.strip() == agreed.strip()

    return {n: sorted(v) for n, v in sorted(seen.items()) if not all(ok(x) for x in v)}


def _per_node(
    *, label: str, agreed: str, seen: PerNode, versioned: bool, mandatory: bool,
    item: EvidenceItem | None,
) -> CheckResult:  # fmt: skip
    name = f"runtime: {label} per node"
    if not seen:
        return _result(
            name=name, status="warn", measured="not shown", expected=agreed, mandatory=mandatory,
            item=item, message=f"No evidence shows the {label} of any node, so the agreed "
            f"{agreed} could not be compared.",
        )  # fmt: skip
    wrong = _differing(seen, agreed, versioned=versioned)
    if not wrong:
        return _result(
            name=name, status="pass", measured=f"{agreed} on {len(seen)} node(s)",
            expected=agreed, mandatory=mandatory, item=item,
            message=f"Every node that shows its {label} runs {agreed}.",
        )  # fmt: skip
    detail = "; ".join(f"{node} runs {', '.join(v)}" for node, v in list(wrong.items())[:6])
    first = next(iter(wrong))
    return _result(
        name=name, status="fail", measured=detail, expected=f"{agreed} on every node",
        mandatory=mandatory, item=item, node=first if len(wrong) == 1 else None,
        message=f"{label} differs from the agreed {agreed} on {len(wrong)} node(s): {detail}.",
    )  # fmt: skip


def check_versions(
    *, spec: Spec, by_kind: Mapping[str, Sequence[EvidenceItem]], mandatory: bool
) -> list[CheckResult]:
    """Per-node CUDA, OS image, Kubernetes version and worker node spec where agreed."""
    fixture = list(by_kind.get("fixture-result", []))
    items = fixture + list(by_kind.get("nccl-tests", []))
    first = items[0] if items else None
    out: list[CheckResult] = []
    if spec.cuda_version:
        out.append(
            _per_node(label="CUDA version", agreed=spec.cuda_version, versioned=True,
                      seen=cuda_by_node(items=items), mandatory=mandatory, item=first)
        )  # fmt: skip
    wanted = [("OS image", "os_image", spec.os_image)]
    if spec.scheduler == "kubernetes":
        wanted += [
            ("Kubernetes version", "kubernetes_version", spec.kubernetes_version),
            ("worker node spec", "worker_node_spec", spec.worker_node_spec),
        ]
    for label, key, agreed in wanted:
        if agreed:
            out.append(
                _per_node(label=label, agreed=agreed, seen=_records_field(fixture, key),
                          versioned=key == "kubernetes_version", mandatory=mandatory,
                          item=fixture[0] if fixture else first)
            )  # fmt: skip
    return out


def backends_by_host(*, items: Iterable[EvidenceItem]) -> PerNode:
    """The GIN backend NCCL assigned, by the host whose log line says so ("" when unprefixed)."""
    seen: PerNode = {}
    for _, run in nccl_runs(items):
        for host, backend in run.collective_backends.items():
            seen.setdefault(host, set()).add(backend)
    return seen


def check_backend(
    *, spec: Spec, items: Sequence[EvidenceItem], mandatory: bool
) -> list[CheckResult]:
    """The collective backend NCCL reports against the agreed one; nothing when neither says."""
    seen = backends_by_host(items=items)
    used = sorted({b for v in seen.values() for b in v})
    name, first = "nccl-tests: collective backend", items[0] if items else None
    shown = ", ".join(used) or "not shown"
    if not spec.collective_backend:
        if not used:
            return []
        return [
            _result(name=name, status="warn", measured=shown, expected="not agreed",
                    mandatory=mandatory, item=first,
                    message=f"The fixture agrees no collective backend; NCCL assigned {shown}. "
                    "Agree one in the fixture's runtime to check it.")
        ]  # fmt: skip
    agreed = spec.collective_backend
    if not used:
        return [
            _result(name=name, status="inconclusive", measured=shown, expected=agreed,
                    mandatory=mandatory, item=first,
                    message=f"The {agreed} backend is agreed, but no nccl-tests output shows "
                    "the backend NCCL assigned: run with NCCL_DEBUG=INFO (subsystem INIT) so "
                    "its 'GIN/Plugin: Assigned plugin' line is in the output.")
        ]  # fmt: skip
    wrong = {h: sorted(v) for h, v in sorted(seen.items()) if v != {agreed}}
    detail = "; ".join(f"{h or 'the run'} used {', '.join(v)}" for h, v in wrong.items())
    return [
        _result(name=name, status="fail" if wrong else "pass", measured=shown, expected=agreed,
                mandatory=mandatory, item=first,
                node=next(iter(wrong)) or None if len(wrong) == 1 else None,
                message=f"NCCL did not use the agreed {agreed} backend: {detail}."
                if wrong else f"NCCL used the agreed {agreed} backend on every host.")
    ]  # fmt: skip
