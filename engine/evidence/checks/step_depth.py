"""How long the workload ran and how long its slow steps were, beyond the rank medians.

A 60-second run proves nothing about throttling that sets in after twenty minutes, and a rank
whose median is fine can still spend one step in ten far above the others: the duration check
holds the run to the agreed minutes, the tail check holds every rank's p95 step time to the
agreed factor of the run median.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.evidence.checks.hardware import make
from engine.evidence.checks.model import CheckResult, EvidenceItem
from engine.evidence.checks.spec import DEFAULT_THRESHOLDS, Spec
from engine.evidence.parsers.step_times import RankSteps, StepTimesResult
from engine.formatting import countdown, duration

StepFiles = Sequence[tuple[EvidenceItem, tuple[RankSteps, ...]]]


def _agreed(spec: Spec, key: str, *, least: float) -> float:
    """The spec's number, or the default where a stored spec holds none or an invalid one."""
    value = spec.thresholds.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= least:
        return float(value)
    return float(DEFAULT_THRESHOLDS[key])


def _minutes(spec: Spec) -> float:
    return _agreed(spec, "burnin_min_minutes", least=1e-9)


def _factor(spec: Spec) -> float:
    return _agreed(spec, "step_time_tail_factor", least=1.0)


def check_duration(*, spec: Spec, files: StepFiles, mandatory: bool) -> CheckResult:
    """The longest file's run against the agreed minutes (files of one run cover the same span)."""
    minutes = _minutes(spec)
    runs = [
        (item, item.parsed)
        for item, _ in files
        if isinstance(item.parsed, StepTimesResult) and item.parsed.duration_s is not None
    ]
    item, longest = max(runs, key=lambda r: r[1].duration_s or 0.0)
    seconds = longest.duration_s or 0.0
    how = (
        "first to last timestamp"
        if longest.duration_source == "timestamps"
        else "the logged step times added up (the file has no timestamp column)"
    )
    short = seconds < minutes * 60
    return make(
        item,
        name="step-times: duration",
        group="step-times",
        status="fail" if short else "pass",
        measured=f"{countdown(seconds)} ({how})",
        expected=f">= {duration(minutes)}",
        message=(
            f"The workload ran {countdown(seconds)} by {how}; {duration(minutes)} agreed: "
            "a run this short cannot show throttling or a link that degrades under load."
            if short
            else f"The workload ran {countdown(seconds)}, at least the agreed {duration(minutes)}."
        ),
        mandatory=mandatory,
    )


def check_tail(*, spec: Spec, files: StepFiles, run_median: float, mandatory: bool) -> CheckResult:
    """Every rank's p95 step time within the agreed factor of the run median."""
    factor = _factor(spec)
    limit = run_median * factor
    long_tail = sorted(
        ((i, r) for i, per_rank in files for r in per_rank if r.p95 > limit),
        key=lambda x: -x[1].p95,
    )
    expected = f"every rank's p95 <= {factor:g} × run median ({limit:.4g} s)"
    if not long_tail:
        return make(
            files[0][0],
            name="step-times: tail",
            group="step-times",
            status="pass",
            measured=f"slowest p95 within {factor:g} × {run_median:.4g} s",
            expected=expected,
            message=f"No rank's p95 step time exceeds {factor:g} × the run median.",
            mandatory=mandatory,
        )
    item, worst = long_tail[0]
    names = ", ".join(f"rank {r.rank} on {r.node} (p95 {r.p95:.4g} s)" for _, r in long_tail[:5])
    return make(
        item,
        name="step-times: tail",
        group="step-times",
        status="fail",
        measured=f"rank {worst.rank} on {worst.node}: p95 {worst.p95:.4g} s = "
        f"{worst.p95 / run_median:.2f} × run median {run_median:.4g} s",
        expected=expected,
        message=f"{len(long_tail)} rank(s) with a long step-time tail: {names}"
        + (" and more." if len(long_tail) > 5 else "."),
        mandatory=mandatory,
        line=worst.line,
    )
