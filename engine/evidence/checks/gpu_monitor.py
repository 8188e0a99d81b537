"""GPU monitoring captured beside the burn-in (`nvidia-smi dmon`): a GPU that fell off the bus,
double-bit ECC errors, PCIe replays that rose, and temperatures against agreed limits.

dmon samples every GPU each interval, so a fault is named with the GPU and the row it showed on.
A check is mandatory when the fixture lists `nvidia-smi-dmon` in `required_evidence`; a GPU
lost or a double-bit ECC error the capture shows fails and blocks the gate even where the
capture was not required, since a broken GPU does not become acceptable because nobody asked
for the file that shows it. PCIe replays that rose are a warning: a marginal link, not a failed
one. A temperature limit is judged only where the fixture agrees one, and an agreed limit makes
its check mandatory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem, Status
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.nvidia_smi_dmon import DmonResult, DmonSample

KIND = "nvidia-smi-dmon"
GROUP = "gpu-monitor"
LOST = "nvidia-smi-dmon: GPUs stay on the bus"
DBE = "nvidia-smi-dmon: double-bit ECC"
REPLAYS = "nvidia-smi-dmon: PCIe replays"
# (threshold, column, name, what) for each temperature a fixture may limit.
TEMPERATURES = (
    ("gpu_temp_limit_c", "gtemp", "nvidia-smi-dmon: GPU temperature", "GPU temperature"),
    ("memory_temp_limit_c", "mtemp", "nvidia-smi-dmon: memory temperature", "memory temperature"),
)
_LOST_MESSAGE_RE = re.compile(r"gpu is lost|fallen off the bus", re.I)


def _where(item: EvidenceItem) -> str:
    return item.node or "the allocation"


@dataclass(frozen=True)
class Lost:
    gpu: int
    line: int
    readings_before: int
    how: str


def lost_gpus(parsed: DmonResult) -> list[Lost]:
    """Each GPU's first row without readings (all `-`) or cut short after its index. A row cut
    short that still holds numbers on the file's last line is the capture ending mid-write."""
    last_line = parsed.samples[-1].line
    found: dict[int, Lost] = {}
    seen: dict[int, int] = {}
    for sample in parsed.samples:
        if sample.gpu in found:
            continue
        cut = sample.truncated and (sample.blank or sample.line != last_line)
        if sample.blank or cut:
            how = "its row stops after the GPU index" if cut else "every column reads '-'"
            found[sample.gpu] = Lost(sample.gpu, sample.line, seen.get(sample.gpu, 0), how)
        else:
            seen[sample.gpu] = seen.get(sample.gpu, 0) + 1
    return list(found.values())


def _lost_text(lost: Lost) -> str:
    after = (
        f"after {lost.readings_before} samples with readings"
        if lost.readings_before
        else "before any reading"
    )
    return f"GPU {lost.gpu} stopped reporting at line {lost.line} ({lost.how}, {after})"


def check_lost(item: EvidenceItem, parsed: DmonResult, mandatory: bool) -> CheckResult:
    lost = lost_gpus(parsed)
    driver = [m for m in parsed.messages if _LOST_MESSAGE_RE.search(m.text)]
    where, rows = _where(item), len(parsed.samples)
    if lost or driver:
        detail = "; ".join(_lost_text(x) for x in lost[:4])
        said = (
            f" nvidia-smi printed {driver[0].text[:120]!r} (line {driver[0].line})."
            if driver
            else ""
        )
        return make(
            item,
            name=LOST,
            group=GROUP,
            status="fail",
            measured=f"{len(lost)} of {len(parsed.gpus)} GPUs lost, first GPU {lost[0].gpu} at "
            f"line {lost[0].line}"
            if lost
            else f"nvidia-smi reports a lost GPU at line {driver[0].line}",
            expected="every GPU reports on every row",
            message=f"On {where}, {detail or 'the driver lost a GPU'}: the GPU fell off the bus "
            f"or the driver lost it during the capture.{said}",
            mandatory=True,
            line=lost[0].line if lost else driver[0].line,
        )
    return make(
        item,
        name=LOST,
        group=GROUP,
        status="pass",
        measured=f"{len(parsed.gpus)} GPUs, {rows} rows",
        expected="every GPU reports on every row",
        message=f"Every GPU dmon sampled on {where} ({', '.join(map(str, parsed.gpus))}) "
        f"reported on each of its rows ({rows} rows).",
        mandatory=mandatory,
    )


def _highest(parsed: DmonResult, column: str) -> dict[int, tuple[float, DmonSample]]:
    """Per GPU, its highest reading of `column` and the row that first showed it."""
    top: dict[int, tuple[float, DmonSample]] = {}
    for sample in parsed.samples:
        value = parsed.reading(sample, column)
        if value is not None and (sample.gpu not in top or value > top[sample.gpu][0]):
            top[sample.gpu] = (value, sample)
    return top


def check_dbe(
    spec: Spec, item: EvidenceItem, parsed: DmonResult, mandatory: bool
) -> CheckResult | None:
    """Judged on each GPU's highest `dbecc` reading against `thresholds.ecc_uncorrected_max`,
    the limit the GPU query's uncorrected ECC is held to. No row without a `dbecc` column."""
    if "dbecc" not in parsed.columns:
        return None
    limit = int(spec.thresholds.get("ecc_uncorrected_max") or 0)
    top, where = _highest(parsed, "dbecc"), _where(item)
    expected = f"<= {limit} double-bit ECC errors per GPU"
    over = sorted((g, v, s) for g, (v, s) in top.items() if v > limit)
    status: Status = "fail" if over else "pass" if top else "inconclusive"
    if over:
        gpu, value, sample = over[0]
        message = (
            f"On {where}, GPU {gpu} reports {value:g} double-bit ECC errors at line "
            f"{sample.line} ({len(over)} GPU(s) above {limit}): uncorrectable memory errors."
        )
        measured = f"GPU {gpu}: {value:g} at line {sample.line}"
    elif top:
        message = f"No GPU on {where} reports double-bit ECC errors above {limit}."
        measured = f"max {max(v for v, _ in top.values()):g} over {len(top)} GPUs"
    else:
        message = f"dbecc reads '-' on every row from {where}: ECC is off or not reported."
        measured = "not shown"
    return make(
        item,
        name=DBE,
        group=GROUP,
        status=status,
        measured=measured,
        expected=expected,
        message=message,
        mandatory=True if over else mandatory,
        line=over[0][2].line if over else None,
    )


def check_replays(item: EvidenceItem, parsed: DmonResult) -> CheckResult | None:
    """A GPU whose `pci` replay count read higher than its first reading: the count rose during
    the capture. No row where the capture has no readings of it."""
    first: dict[int, float] = {}
    rose: dict[int, tuple[float, float, DmonSample]] = {}
    for sample in parsed.samples:
        value = parsed.reading(sample, "pci")
        if value is None:
            continue
        start = first.setdefault(sample.gpu, value)
        if value > start and value - start > rose.get(sample.gpu, (0.0, 0.0, sample))[1]:
            rose[sample.gpu] = (start, value - start, sample)
    if not first:
        return None
    where = _where(item)
    worst = max(rose.items(), key=lambda r: r[1][1], default=None)
    message = (
        f"On {where}, the PCIe replay count of {len(rose)} GPU(s) rose during the capture; "
        f"GPU {worst[0]} by {worst[1][1]:g} (from {worst[1][0]:g}, line {worst[1][2].line}): "
        "a marginal PCIe link retransmits. Reseat or replace before it degrades further."
        if worst
        else f"No GPU's PCIe replay count on {where} rose during the capture."
    )
    return make(
        item,
        name=REPLAYS,
        group=GROUP,
        status="warn" if worst else "pass",
        measured=f"GPU {worst[0]} +{worst[1][1]:g}" if worst else f"{len(first)} GPUs steady",
        expected="no PCIe replays during the burn-in",
        message=message,
        mandatory=False,
        line=worst[1][2].line if worst else None,
    )


def check_temperature(
    item: EvidenceItem, parsed: DmonResult, limit: float, column: str, name: str
) -> CheckResult:
    what = next(t[3] for t in TEMPERATURES if t[1] == column)
    top, where = _highest(parsed, column), _where(item)
    hot = sorted(((g, v, s) for g, (v, s) in top.items() if v >= limit), key=lambda h: -h[1])
    status: Status = "fail" if hot else "pass" if top else "inconclusive"
    if hot:
        gpu, value, sample = hot[0]
        message = (
            f"On {where}, GPU {gpu} reached a {what} of {value:g} C at line {sample.line} "
            f"({len(hot)} GPU(s) at or above the agreed {limit:g} C)."
        )
        measured = f"GPU {gpu}: {value:g} C at line {sample.line}"
    elif top:
        peak = max(v for v, _ in top.values())
        message = f"The {what} on {where} peaked at {peak:g} C, below the agreed {limit:g} C."
        measured = f"max {peak:g} C over {len(top)} GPUs"
    else:
        message = f"The capture from {where} shows no {column} readings (-s p selects them)."
        measured = "not shown"
    return make(
        item,
        name=name,
        group=GROUP,
        status=status,
        measured=measured,
        expected=f"< {limit:g} C",
        message=message,
        mandatory=True,
        line=hot[0][2].line if hot else None,
    )


def _missing(name: str, limit: float) -> CheckResult:
    return CheckResult(
        name=name,
        group=GROUP,
        status="missing",
        measured="no file",
        expected=f"< {limit:g} C",
        evidence_ref=None,
        line=None,
        mandatory=True,
        message=f"A limit of {limit:g} C was agreed but no nvidia-smi dmon capture was uploaded.",
    )


def check_gpu_monitor(
    *, spec: Spec, by_kind: Mapping[str, Sequence[EvidenceItem]], mandatory: bool
) -> list[CheckResult]:
    """Every check over each dmon capture, and a missing row for an agreed temperature limit
    when no capture was uploaded (an unreadable one is reported as such, not missing)."""
    items = by_kind.get(KIND, [])
    results: list[CheckResult] = []
    for item in items:
        parsed = item.parsed
        assert isinstance(parsed, DmonResult)
        found = [
            check_lost(item, parsed, mandatory),
            check_dbe(spec, item, parsed, mandatory),
            check_replays(item, parsed),
        ]
        results.extend(r for r in found if r is not None)
    for key, column, name, _what in TEMPERATURES:
        limit = spec.agreed_limit(key)
        if limit is None:
            continue
        if KIND not in by_kind:
            results.append(_missing(name, limit))
        for item in items:
            assert isinstance(item.parsed, DmonResult)
            results.append(check_temperature(item, item.parsed, limit, column, name))
    return results
