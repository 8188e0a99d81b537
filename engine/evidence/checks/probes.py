"""Pilot probes against the fixture's floors: `nvbandwidth` host-device copies, and `perftest`
bandwidth and tail latency on the fabric.

Each floor is optional in the spec (`thresholds.host_device_gbps_min`,
`thresholds.fabric_gbps_min`, `thresholds.fabric_p99_latency_us_max`); a floor that was agreed
makes its probe mandatory, and one left at null runs no check. A probe is judged where it is
weakest: the slowest GPU's host link, the slowest unidirectional bandwidth run at its largest
message, the worst 99th-percentile latency at the smallest message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.nvbandwidth import HOST_DEVICE_TESTCASES, NvbandwidthResult
from engine.evidence.parsers.perftest import PerftestResult, PerftestRun
from engine.formatting import bandwidth, link_rate, number

HOST_DEVICE = "nvbandwidth: host-device copy bandwidth"
FABRIC_BW = "perftest: fabric bandwidth"
FABRIC_LAT = "perftest: fabric p99 latency"


@dataclass(frozen=True)
class Worst:
    """The weakest figure an item shows, where it was read, and what it was."""

    value: float
    where: str
    line: int | None


def _host_device_worst(parsed: NvbandwidthResult) -> Worst | None:
    found = [
        Worst(value, f"GPU {col}, {m.testcase}", m.line)
        for m in parsed.matrices
        if m.testcase in HOST_DEVICE_TESTCASES and m.unit == "GB/s"
        for _row, col, value in m.cells()
    ]
    return min(found, key=lambda w: w.value, default=None)


def fabric_bandwidth_worst(parsed: PerftestResult) -> Worst | None:
    found = []
    for run in _runs(parsed, "bw"):
        row = max(run.rows, key=lambda r: r.bytes)
        gbps = run.gbps(row.bw_average)
        if gbps is not None:
            what = f"{run.tool or 'perftest'} on {run.device or 'its device'}"
            found.append(Worst(gbps, f"{what}, {row.bytes} B, {run.qps or 1} QP", row.line))
    return min(found, key=lambda w: w.value, default=None)


def fabric_latency_worst(parsed: PerftestResult) -> Worst | None:
    found = []
    for run in _runs(parsed, "lat"):
        row = min(run.rows, key=lambda r: r.bytes)
        if row.p99_us is not None:
            what = f"{run.tool or 'perftest'} on {run.device or 'its device'}"
            found.append(Worst(row.p99_us, f"{what}, {row.bytes} B", row.line))
    return max(found, key=lambda w: w.value, default=None)


def _runs(parsed: PerftestResult, measure: str) -> list[PerftestRun]:
    # Bidirectional runs report both directions added up: not comparable with a one-way floor.
    return [r for r in parsed.runs if r.measure == measure and not r.bidirectional]


@dataclass(frozen=True)
class Probe:
    name: str
    group: str
    kind: str
    key: str
    low_is_bad: bool
    show: Callable[[float], str]
    worst: Callable[[NvbandwidthResult | PerftestResult], Worst | None]
    lacking: str  # why an item of the kind holds no figure to judge


PROBES = (
    Probe(
        HOST_DEVICE,
        "host-device",
        "nvbandwidth",
        "host_device_gbps_min",
        True,
        bandwidth,
        lambda p: _host_device_worst(p) if isinstance(p, NvbandwidthResult) else None,
        "no host_to_device or device_to_host memcpy testcase in the file",
    ),
    Probe(
        FABRIC_BW,
        "fabric-probe",
        "perftest",
        "fabric_gbps_min",
        True,
        link_rate,
        lambda p: fabric_bandwidth_worst(p) if isinstance(p, PerftestResult) else None,
        "no one-way bandwidth run (ib_write_bw, ib_read_bw, ib_send_bw) in the file",
    ),
    Probe(
        FABRIC_LAT,
        "fabric-probe",
        "perftest",
        "fabric_p99_latency_us_max",
        False,
        lambda v: f"{number(v)} µs",
        lambda p: fabric_latency_worst(p) if isinstance(p, PerftestResult) else None,
        "no latency run with a 99 % percentile column (this perftest release prints none, or "
        "no ib_*_lat run was uploaded)",
    ),
)


def _judge(probe: Probe, item: EvidenceItem, limit: float, mandatory: bool) -> CheckResult:
    assert isinstance(item.parsed, NvbandwidthResult | PerftestResult)
    worst = probe.worst(item.parsed)
    sign = ">=" if probe.low_is_bad else "<="
    expected = f"{sign} {probe.show(limit)}"
    if worst is None:
        errors = "; ".join(item.parsed.errors[:2])
        why = f"the probe failed: {errors}" if errors else probe.lacking
        status: Status = "inconclusive"
        return make(
            item,
            name=probe.name,
            group=probe.group,
            status=status,
            measured="no figure",
            expected=expected,
            message=f"{item.ref}: {why}.",
            mandatory=mandatory,
        )
    ok = worst.value >= limit if probe.low_is_bad else worst.value <= limit
    verdict = "meets" if ok else "misses"
    message = (
        f"{item.ref}: weakest reading {probe.show(worst.value)} ({worst.where}) "
        f"{verdict} the agreed {expected}."
    )
    # A run that broke off left some links unmeasured: a reading above the floor proves nothing
    # about them, one below it fails all the same.
    unfinished = ok and bool(item.parsed.errors)
    if unfinished:
        message += f" But the run also reported: {'; '.join(item.parsed.errors[:2])}."
    return make(
        item,
        name=probe.name,
        group=probe.group,
        status="inconclusive" if unfinished else "pass" if ok else "fail",
        measured=f"{probe.show(worst.value)} ({worst.where})",
        expected=expected,
        message=message,
        mandatory=mandatory,
        line=worst.line,
    )


def _missing(probe: Probe, limit: float) -> CheckResult:
    sign = ">=" if probe.low_is_bad else "<="
    return CheckResult(
        name=probe.name,
        group=probe.group,
        status="missing",
        measured="no file",
        expected=f"{sign} {probe.show(limit)}",
        evidence_ref=None,
        line=None,
        mandatory=True,
        message=f"A {probe.kind} floor was agreed ({sign} {probe.show(limit)}) but no "
        f"{probe.kind} output was uploaded.",
    )


def check_probes(*, spec: Spec, by_kind: dict[str, list[EvidenceItem]]) -> list[CheckResult]:
    """One result per probe file whose floor the spec agreed; a missing row where none came."""
    results: list[CheckResult] = []
    for probe in PROBES:
        limit = spec.agreed_limit(probe.key)
        if limit is None:
            continue
        items: Sequence[EvidenceItem] = by_kind.get(probe.kind, [])
        if probe.kind not in by_kind:  # an unreadable file is reported as such, not missing
            results.append(_missing(probe, limit))
        results.extend(_judge(probe, item, limit, True) for item in items)
    return results
