"""Per-node hardware checks: topology, GPU inventory, DCGM diagnostics, InfiniBand ports."""

from __future__ import annotations

import re

from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.runtime import driver_cuda_check
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.dcgmi_diag import DcgmiResult
from engine.evidence.parsers.ibstat import IbPort, IbstatResult
from engine.evidence.parsers.nvidia_smi_query import GpuQueryResult
from engine.evidence.parsers.nvidia_smi_topo import TopoResult
from engine.formatting import link_rate


def _where(item: EvidenceItem) -> str:
    return item.node or "the allocation"


def make(
    item: EvidenceItem,
    *,
    name: str,
    group: str,
    status: Status,
    measured: str,
    expected: str,
    message: str,
    mandatory: bool,
    line: int | None = None,
) -> CheckResult:
    return CheckResult(
        name=name,
        group=group,
        status=status,
        measured=measured,
        expected=expected,
        evidence_ref=item.ref,
        line=line,
        mandatory=mandatory,
        message=message,
        node=item.node,
    )


def _nvlink_class(
    topo: TopoResult, item: EvidenceItem, agreed: str, mandatory: bool
) -> CheckResult:
    where = _where(item)
    bad: list[tuple[str, str, str]] = []
    for a in topo.gpus:
        for b in topo.gpus:
            if a < b or a == b:
                continue
            link = topo.matrix.get(a, {}).get(b)
            if link != agreed:
                bad.append((b, a, str(link)))
    pairs = len(topo.gpus) * (len(topo.gpus) - 1) // 2
    return make(
        item,
        name="topology: NVLink class",
        group="topology",
        status="fail" if bad or not pairs else "pass",
        measured=(
            f"{len(bad)} of {pairs} GPU pairs differ, e.g. {bad[0][0]}-{bad[0][1]} {bad[0][2]}"
            if bad
            else f"{agreed} on all {pairs} GPU pairs"
        ),
        expected=f"{agreed} between every GPU pair",
        message=(
            f"On {where}, {len(bad)} GPU pair(s) are not linked by {agreed}."
            if bad
            else f"Every GPU pair on {where} is linked by {agreed}."
            if pairs
            else f"The topology on {where} lists fewer than two GPUs."
        ),
        mandatory=mandatory,
        line=topo.row_lines.get(bad[0][0]) if bad else None,
    )


def _close_nic(topo: TopoResult, item: EvidenceItem, mandatory: bool) -> CheckResult:
    where = _where(item)
    far: list[str] = []
    for gpu in topo.gpus:
        links = topo.matrix.get(gpu, {})
        if not any(links.get(nic) in ("PIX", "PXB") for nic in topo.nics):
            far.append(gpu)
    return make(
        item,
        name="topology: close NIC per GPU",
        group="topology",
        status="fail" if far or not topo.nics else "pass",
        measured=(
            "no NIC in the matrix"
            if not topo.nics
            else f"no PIX/PXB NIC for {', '.join(far)}"
            if far
            else f"every GPU has a PIX/PXB NIC ({len(topo.nics)} NICs)"
        ),
        expected="a PIX or PXB NIC for every GPU (rail-optimised)",
        message=(
            f"The topology from {where} shows no NICs, so rail placement cannot be shown."
            if not topo.nics
            else f"On {where}, {len(far)} GPU(s) have no NIC behind a close PCIe switch."
            if far
            else f"Every GPU on {where} has a NIC behind a close PCIe switch."
        ),
        mandatory=mandatory,
        line=topo.row_lines.get(far[0]) if far else None,
    )


def check_topology(spec: Spec, item: EvidenceItem, mandatory: bool) -> list[CheckResult]:
    topo = item.parsed
    assert isinstance(topo, TopoResult)
    out: list[CheckResult] = []
    agreed = spec.thresholds.get("nvlink_class")
    if agreed:
        out.append(_nvlink_class(topo, item, agreed, mandatory))
    if spec.thresholds.get("rail_optimised"):
        out.append(_close_nic(topo, item, mandatory))
    return out


def _model_matches(agreed: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(agreed)}(?![A-Za-z0-9])", name, re.I) is not None


def _line_of(query: GpuQueryResult, i: int) -> int | None:
    return query.gpu_lines[i] if i < len(query.gpu_lines) else None


def _gpu_count(
    spec: Spec, item: EvidenceItem, query: GpuQueryResult, mandatory: bool
) -> CheckResult:
    gpus, lost = query.gpus, query.lost_gpus
    expected_count = spec.gpus_per_node if item.node else spec.gpus_per_node * spec.nodes
    # A GPU the driver lost is never a pass, whatever the count of the others.
    lost_text = f"; nvidia-smi also printed {lost[0]!r}" if lost else ""
    return make(
        item,
        name="gpu-query: GPU count",
        group="gpu-query",
        status="pass" if len(gpus) == expected_count and not lost else "fail",
        measured=f"{len(gpus)} GPUs" + (f", {len(lost)} lost" if lost else ""),
        expected=f"{expected_count} GPUs",
        message=f"nvidia-smi on {_where(item)} lists {len(gpus)} GPU(s); {expected_count} agreed"
        f"{lost_text}.",
        mandatory=mandatory,
    )


def _gpu_model(
    agreed: str, item: EvidenceItem, query: GpuQueryResult, mandatory: bool
) -> CheckResult:
    gpus, where = query.gpus, _where(item)
    wrong = [
        (i, str(g.get("name")))
        for i, g in enumerate(gpus)
        if not _model_matches(agreed, str(g.get("name") or ""))
    ]
    return make(
        item,
        name="gpu-query: GPU model",
        group="gpu-query",
        status="fail" if wrong else "pass",
        measured=f"GPU {wrong[0][0]} is {wrong[0][1]!r}"
        if wrong
        else str(gpus[0].get("name"))
        if gpus
        else "no GPUs",
        expected=agreed,
        message=(
            f"{len(wrong)} GPU(s) on {where} are not {agreed}."
            if wrong
            else f"Every GPU on {where} is a {agreed}."
        ),
        mandatory=mandatory,
        line=_line_of(query, wrong[0][0]) if wrong else None,
    )


def _driver_version(
    spec: Spec, item: EvidenceItem, query: GpuQueryResult, mandatory: bool
) -> CheckResult:
    where = _where(item)
    drivers = {str(g.get("driver_version")) for g in query.gpus if g.get("driver_version")}
    name = "gpu-query: driver version"
    if not spec.driver_version:  # never skipped in silence: the buyer sees what ran
        shown = query.driver_version or ", ".join(sorted(drivers))
        of = f" of {item.node}" if item.node else ""
        runs = f"{where} runs {shown}" if shown else f"the nvidia-smi output{of} does not show one"
        return make(
            item,
            name=name,
            group="gpu-query",
            status="warn",
            measured=shown or "not shown",
            expected="not agreed",
            message=f"The fixture agrees no driver version; {runs}. "
            "Agree one in the fixture's runtime to check it.",
            mandatory=mandatory,
        )
    driver = query.driver_version or (next(iter(drivers)) if len(drivers) == 1 else None)
    status: Status = (
        "inconclusive"
        if not drivers and driver is None
        else "pass"
        if driver == spec.driver_version and len(drivers) <= 1
        else "fail"
    )
    return make(
        item,
        name=name,
        group="gpu-query",
        status=status,
        measured=driver or (", ".join(sorted(drivers)) or "not shown"),
        expected=spec.driver_version,
        message=(
            f"The output from {where} does not show the driver version."
            if status == "inconclusive"
            else f"Driver on {where} is {driver or sorted(drivers)}; {spec.driver_version} agreed."
        ),
        mandatory=mandatory,
    )


def _driver_supports_cuda(
    spec: Spec, item: EvidenceItem, query: GpuQueryResult, mandatory: bool
) -> CheckResult | None:
    driver_cuda = driver_cuda_check(spec, query.cuda_version, _where(item))
    if driver_cuda is None:
        return None
    status, measured, message = driver_cuda
    return make(
        item,
        name="gpu-query: driver supports CUDA",
        group="gpu-query",
        status=status,
        measured=measured,
        expected=f">= {spec.cuda_version}",
        message=message,
        mandatory=mandatory,
    )


def _uncorrected_ecc(
    spec: Spec, item: EvidenceItem, query: GpuQueryResult, mandatory: bool
) -> CheckResult:
    gpus, where = query.gpus, _where(item)
    limit = spec.thresholds.get("ecc_uncorrected_max", 0)
    key = "ecc.errors.uncorrected.volatile.total"
    values = [(i, g.get(key)) for i, g in enumerate(gpus)]
    unknown = [i for i, v in values if not isinstance(v, int | float)]
    over = [(i, v) for i, v in values if isinstance(v, int | float) and v > limit]
    status: Status = "fail" if over else "inconclusive" if unknown or not gpus else "pass"
    return make(
        item,
        name="gpu-query: uncorrected ECC",
        group="gpu-query",
        status=status,
        measured=(
            f"GPU {over[0][0]}: {over[0][1]} uncorrected"
            if over
            else f"not shown for {len(unknown)} GPU(s)"
            if unknown
            else f"max {max((v for _, v in values if isinstance(v, int | float)), default=0)}"
        ),
        expected=f"<= {limit} volatile uncorrected ECC errors per GPU",
        message=(
            f"{len(over)} GPU(s) on {where} report uncorrected ECC errors above {limit}."
            if over
            else f"Uncorrected ECC is not shown (N/A or not queried) for {len(unknown)} GPU(s)"
            f" on {where}."
            if unknown
            else f"No GPU on {where} reports uncorrected ECC errors above {limit}."
        ),
        mandatory=mandatory,
        line=_line_of(query, over[0][0])
        if over
        else _line_of(query, unknown[0])
        if unknown
        else None,
    )


_REMAP_FLAGS = (("remapped_rows.failure", "a row remapping failed"),
                ("remapped_rows.pending", "row remappings pending"))  # fmt: skip


def _row_remapping(
    item: EvidenceItem, query: GpuQueryResult, mandatory: bool
) -> CheckResult | None:
    """Pending remaps wait for a GPU reset to take effect; a failed one means the GPU has no
    spare rows left. None when the output does not carry the row remapper's flags."""
    keys = [k for k, _ in _REMAP_FLAGS]
    gpus, where = query.gpus, _where(item)
    if not any(k in g for g in gpus for k in keys):
        return None
    bad = [(i, words) for i, g in enumerate(gpus) for k, words in _REMAP_FLAGS if g.get(k) is True]
    # Unknown: N/A where a flag was asked for, or neither flag printed for that GPU.
    unknown = [
        i
        for i, g in enumerate(gpus)
        if any(k in g and g[k] is None for k in keys) or not any(k in g for k in keys)
    ]
    first = bad[0] if bad else None
    return make(
        item,
        name="gpu-query: row remapping",
        group="gpu-query",
        status="fail" if first else "warn" if unknown else "pass",
        measured=f"GPU {first[0]}: {first[1]}"
        if first
        else f"not shown for {len(unknown)} GPU(s)"
        if unknown
        else f"none pending or failed on {len(gpus)} GPU(s)",
        expected="no row remapping pending or failed",
        message=f"{len({i for i, _ in bad})} GPU(s) on {where} show {first[1]}: reset the GPU so "
        "pending remaps take effect; a failed remapping needs the GPU replaced."
        if first
        else f"The row remapper's state is not shown (N/A) for {len(unknown)} GPU(s) on {where}."
        if unknown
        else f"No GPU on {where} has a row remapping pending or failed.",
        mandatory=mandatory,
        line=_line_of(query, first[0]) if first else None,
    )


def check_gpu_query(spec: Spec, item: EvidenceItem, mandatory: bool) -> list[CheckResult]:
    query = item.parsed
    assert isinstance(query, GpuQueryResult)
    found = [
        _gpu_count(spec, item, query, mandatory),
        _gpu_model(spec.gpu_model, item, query, mandatory) if spec.gpu_model else None,
        _driver_version(spec, item, query, mandatory),
        _driver_supports_cuda(spec, item, query, mandatory),
        _uncorrected_ecc(spec, item, query, mandatory),
        _row_remapping(item, query, mandatory),
    ]
    return [result for result in found if result is not None]


def check_dcgmi(spec: Spec, item: EvidenceItem, mandatory: bool) -> list[CheckResult]:
    diag = item.parsed
    assert isinstance(diag, DcgmiResult)
    where = _where(item)
    agreed = int(spec.thresholds.get("dcgm_level") or 1)
    level_status: Status = (
        "inconclusive" if diag.level is None else "pass" if diag.level >= agreed else "fail"
    )
    out = [
        make(
            item,
            name="dcgmi: run level",
            group="dcgmi",
            status=level_status,
            measured=f"level {diag.level} ({diag.level_source})" if diag.level else "unknown",
            expected=f"level >= {agreed}",
            message=f"dcgmi diag on {where} reached level {diag.level}; {agreed} agreed."
            if diag.level
            else f"The run level of dcgmi diag on {where} cannot be told from its output.",
            mandatory=mandatory,
        )
    ]
    policy = str(spec.thresholds.get("dcgm_warn_policy") or "fail")
    failed = [t for t in diag.tests if t.result == "Fail"]
    warned = [t for t in diag.tests if t.result == "Warn"]
    skipped = [t for t in diag.tests if t.result == "Skip"]
    status: Status
    if failed:
        status, culprit = "fail", failed[0]
    elif warned:
        status, culprit = ("warn" if policy == "warn" else "fail"), warned[0]
    elif skipped:
        status, culprit = "warn", skipped[0]
    else:
        status, culprit = "pass", None
    detail = f" ({culprit.details[:160]})" if culprit and culprit.details else ""
    out.append(
        make(
            item,
            name="dcgmi: all tests pass",
            group="dcgmi",
            status=status,
            measured=(
                f"{len(failed)} Fail, {len(warned)} Warn, {len(skipped)} Skip of "
                f"{len(diag.tests)} tests"
            ),
            expected="every test Pass" + (" (Warn tolerated)" if policy == "warn" else ""),
            message=(
                f"dcgmi diag on {where}: {culprit.name} is {culprit.result}{detail}."
                if culprit
                else f"All {len(diag.tests)} dcgmi diag tests on {where} pass."
            ),
            mandatory=mandatory,
            line=culprit.line if culprit else None,
        )
    )
    return out


def _ports_active(
    spec: Spec, item: EvidenceItem, ib: IbstatResult, mandatory: bool
) -> tuple[CheckResult, list[IbPort], list[IbPort], str]:
    """The check that every backend port is up at the agreed rate, with the backend ports, the
    bad ones among them and the link layer, which the per-node count reads too."""
    where = _where(item)
    layer = "Ethernet" if (spec.transport or "").lower() in ("roce", "ethernet") else "InfiniBand"
    rate = spec.thresholds.get("ib_rate_gbps")
    backend = [p for p in ib.ports if (p.link_layer or "").lower() == layer.lower()]
    bad = [
        p
        for p in backend
        if p.state != "Active"
        or p.physical_state != "LinkUp"
        or (rate is not None and (p.rate is None or p.rate < rate))
    ]
    result = make(
        item,
        name="ibstat: ports active at rate",
        group="ibstat",
        status="fail" if bad or ib.errors else "pass" if backend else "fail",
        measured=(
            f"{bad[0].ca} port {bad[0].port}: {bad[0].state}/{bad[0].physical_state}"
            + (_rate_text(bad[0].rate) if bad[0].state == "Active" else "")
            if bad
            else ib.errors[0][:80]
            if ib.errors
            else f"{len(backend)} {layer} ports Active/LinkUp"
            + (f" at >= {link_rate(rate)}" if rate else "")
        ),
        expected=f"every {layer} port Active/LinkUp" + (f" at {link_rate(rate)}" if rate else ""),
        message=(
            f"{len(bad)} {layer} port(s) on {where} are down or below the agreed rate."
            if bad
            else f"ibstat on {where} ended with an error: {ib.errors[0][:120]}"
            if ib.errors
            else f"All {len(backend)} {layer} ports on {where} are up at the agreed rate."
            if backend
            else f"ibstat on {where} shows no {layer} ports."
        ),
        mandatory=mandatory,
        line=bad[0].line if bad else None,
    )
    return result, backend, bad, layer


def check_ibstat(spec: Spec, item: EvidenceItem, mandatory: bool) -> list[CheckResult]:
    ib = item.parsed
    assert isinstance(ib, IbstatResult)
    active, backend, bad, layer = _ports_active(spec, item, ib, mandatory)
    out = [active]
    wanted = spec.thresholds.get("ib_ports_per_node")
    if wanted:
        good = len(backend) - len(bad)
        # Like the GPU count: an unlabelled file stands for the whole allocation.
        nodes = 1 if item.node else spec.nodes
        needed = int(wanted) * nodes
        per = f" ({wanted} per node × {nodes} nodes)" if nodes > 1 else ""
        out.append(
            make(
                item,
                name="ibstat: ports per node",
                group="ibstat",
                status="pass" if good >= needed else "fail",
                measured=f"{good} healthy {layer} ports ({len(ib.ports)} ports in all)",
                expected=f">= {needed} {layer} ports{per}",
                message=f"{_where(item)} has {good} healthy {layer} port(s); {needed} agreed{per}.",
                mandatory=mandatory,
            )
        )
    return out


def _rate_text(rate: float | None) -> str:
    return " at an unknown rate" if rate is None else f" at {link_rate(rate)}"
