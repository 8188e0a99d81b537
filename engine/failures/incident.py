"""Incident-record helpers: severity proposal, contract clocks, recovery checklist, lost time.

Plain data in and out (the contract's terms arrive as dicts); the Django side stores the results.
Severity follows the handoff terms: S1 the job is down cluster-wide, S2 degraded throughput,
S3 one node out while the job continues.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from .analysis import Analysis
from .errors import IncidentTermsError

SEVERITIES = ("S1", "S2", "S3")


@dataclass(frozen=True, slots=True)
class SeverityProposal:
    severity: str
    reason: str


@dataclass(frozen=True, slots=True)
class IncidentClocks:
    response_due: datetime
    restore_due: datetime


@dataclass(frozen=True, slots=True)
class ClockStatus:
    response_left: timedelta  # negative once overdue
    restore_left: timedelta
    response_breached: bool
    restore_breached: bool


@dataclass(frozen=True, slots=True)
class ChecklistItem:
    key: str
    text: str
    evidence: str | None  # evidence kind that can check it automatically, None = sign-off
    threshold: float | None = None


def propose_severity(
    analysis: Analysis, *, job_continues: bool = False, degraded: bool = False
) -> SeverityProposal:
    """S1 when the job is down across the cluster, S3 when one node is out but the job runs on,
    S2 when the caller reports degraded throughput only."""
    if job_continues:
        node = analysis.initiating_node or "one node"
        return SeverityProposal("S3", f"{node} is out while the job continues")
    if degraded:
        return SeverityProposal("S2", "throughput degraded; the job still runs")
    if analysis.secondary_ranks or analysis.launcher_root_cause is not None:
        n = len(analysis.secondary_ranks)
        return SeverityProposal("S1", f"the job is down: {n} other ranks failed or aborted")
    if analysis.first_failure is not None:
        return SeverityProposal("S1", "the job stopped on the initiating failure")
    return SeverityProposal("S3", "no job-wide failure found in the evidence")


def _minutes(clocks: Mapping[str, Any], severity: str, key: str) -> int:
    if severity not in SEVERITIES:
        raise IncidentTermsError(f"unknown severity {severity!r}; expected one of {SEVERITIES}")
    row = clocks.get(severity)
    if not isinstance(row, Mapping) or key not in row:
        raise IncidentTermsError(f"the contract's clocks have no {key} for {severity}")
    value = row[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise IncidentTermsError(f"{severity} {key} must be a positive number of minutes")
    return int(value)


def incident_clocks(
    *, severity: str, detected_at: datetime, clocks: Mapping[str, Any]
) -> IncidentClocks:
    """Response and restore deadlines from the detection time, per the contract's clocks."""
    if detected_at.tzinfo is None:
        raise IncidentTermsError("detected_at must be timezone-aware")
    respond = _minutes(clocks, severity, "response_minutes")
    restore = _minutes(clocks, severity, "restore_minutes")
    return IncidentClocks(
        detected_at + timedelta(minutes=respond), detected_at + timedelta(minutes=restore)
    )


def clock_status(
    due: IncidentClocks,
    *,
    now: datetime,
    responded_at: datetime | None = None,
    restored_at: datetime | None = None,
) -> ClockStatus:
    """Time left on each clock (frozen at the response/restore time once it happened)."""
    r_end = responded_at or now
    s_end = restored_at or now
    return ClockStatus(
        due.response_due - r_end,
        due.restore_due - s_end,
        r_end > due.response_due,
        s_end > due.restore_due,
    )


_CHECKS: tuple[tuple[str, str, str | None, str | None], ...] = (
    # key in terms, text, evidence kind that checks it, term holding the threshold
    ("diagnostics", "GPU diagnostics pass on the repaired node(s) ({value})", "dcgmi-diag", None),
    ("nccl_margin_pct", "nccl-tests bus bandwidth within {value}% of the hand-over baseline",
     "nccl-tests", "nccl_margin_pct"),
    ("smoke_step_time_margin_pct", "smoke run step time within {value}% of the pre-incident "
     "baseline", "step-times", "smoke_step_time_margin_pct"),
    ("loss_continuity", "training loss continues from the checkpoint without a jump", None, None),
    ("no_recurrence_hours", "no recurrence on the same node for {value} hours", None,
     "no_recurrence_hours"),
)  # fmt: skip


def recovery_checklist(terms: Mapping[str, Any]) -> list[ChecklistItem]:
    """Checklist items from the recovery acceptance terms (`{"nccl_margin_pct": 5, ...}`).

    Items with an evidence kind can be checked against uploads; the rest need a signed note.
    Unknown keys become sign-off items so nothing in the contract is dropped.
    """
    if not isinstance(terms, Mapping):
        raise IncidentTermsError("recovery terms must be a mapping")
    items: list[ChecklistItem] = []
    known = set()
    for key, text, evidence, threshold_key in _CHECKS:
        known.add(key)
        if key not in terms or terms[key] in (None, False):
            continue
        value = terms[key]
        threshold = None
        if threshold_key is not None:
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise IncidentTermsError(f"{key} must be a non-negative number")
            threshold = float(value)
        items.append(ChecklistItem(key, text.format(value=value), evidence, threshold))
    for key in sorted(set(terms) - known):
        if terms[key] not in (None, False):
            items.append(ChecklistItem(key, f"{key.replace('_', ' ')}: {terms[key]}", None))
    return items


def _utc(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def lost_gpu_hours(
    *,
    gpus: int,
    last_checkpoint: datetime,
    failed_at: datetime,
    detected_at: datetime,
    repaired_at: datetime,
    revalidated_at: datetime,
    restarted_at: datetime,
) -> dict[str, float]:
    """GPU-hours lost per phase: work since the checkpoint, detection, repair, revalidation,
    restart/load. Out-of-order timestamps are an error, not a negative cost."""
    marks = [last_checkpoint, failed_at, detected_at, repaired_at, revalidated_at, restarted_at]
    labels = ("last checkpoint", "failure", "detection", "repair", "revalidation", "restart")
    for (a, b), (first, then) in zip(pairwise(marks), pairwise(labels), strict=True):
        if b < a:
            raise IncidentTermsError(
                f"incident timestamps must be in order: {then} ({_utc(b)}) comes before "
                f"{first} ({_utc(a)})"
            )
    names = ("work_since_checkpoint", "detection", "repair", "revalidation", "restart")
    out = {
        n: round((b - a).total_seconds() / 3600 * gpus, 3)
        for n, (a, b) in zip(names, pairwise(marks), strict=True)
    }
    out["total"] = round(sum(out.values()), 3)
    return out


def partial_gpu_hours(
    *,
    nodes_out: int,
    gpus_per_node: int,
    out_at: datetime,
    restored_at: datetime,
    all_gpus: int | None = None,
    fewer_nodes_at: datetime | None = None,
    last_checkpoint: datetime | None = None,
) -> dict[str, Any]:
    """S3, one node (or a few) out. What the job lost, in the parts seed 002 names: the work
    since its last complete checkpoint (every GPU of the job rolls back), the whole job stopped
    until it restarted on fewer nodes, then the missing nodes' GPUs until the restore. Without a
    recorded restart on fewer nodes the job ran on at once; without a checkpoint time nothing is
    counted for the rollback (and `needs` says so)."""
    if restored_at < out_at:
        raise IncidentTermsError(
            f"the restore ({_utc(restored_at)}) comes before the node went out ({_utc(out_at)})"
        )
    if nodes_out < 1 or gpus_per_node < 1:
        raise IncidentTermsError("nodes out and GPUs per node must be at least 1")
    if fewer_nodes_at is not None and not out_at <= fewer_nodes_at <= restored_at:
        raise IncidentTermsError(
            f"the restart on fewer nodes ({_utc(fewer_nodes_at)}) must lie between the node "
            f"going out ({_utc(out_at)}) and the restore ({_utc(restored_at)})"
        )
    if last_checkpoint is not None and last_checkpoint > out_at:
        raise IncidentTermsError(
            f"the last checkpoint ({_utc(last_checkpoint)}) comes after the node went out "
            f"({_utc(out_at)})"
        )
    job = all_gpus or 0
    parts: list[tuple[str, float, str]] = []
    if last_checkpoint is not None and job:
        h = (out_at - last_checkpoint).total_seconds() / 3600
        parts.append(("rollback", job * h, f"rollback: {job} GPUs × {h:.2f} h since the "
                      f"checkpoint at {_utc(last_checkpoint)}"))  # fmt: skip
    reduced_from = out_at
    if fewer_nodes_at is not None and job:
        h = (fewer_nodes_at - out_at).total_seconds() / 3600
        parts.append(("stopped", job * h, f"job stopped: {job} GPUs × {h:.2f} h until it "
                      f"restarted on fewer nodes at {_utc(fewer_nodes_at)}"))  # fmt: skip
        reduced_from = fewer_nodes_at
    hours = (restored_at - reduced_from).total_seconds() / 3600
    gpus = nodes_out * gpus_per_node
    parts.append(("reduced", gpus * hours, f"{nodes_out} node{'s' if nodes_out != 1 else ''} × "
                  f"{gpus_per_node} GPUs × {hours:.2f} h ({_utc(reduced_from)} → "
                  f"{_utc(restored_at)})"))  # fmt: skip
    total = round(sum(value for _, value, _ in parts), 3)
    return {
        "nodes_out": nodes_out,
        "gpus_per_node": gpus_per_node,
        "gpus": gpus,
        "outage_hours": round((restored_at - out_at).total_seconds() / 3600, 3),
        "gpu_hours": total,
        "parts": {name: round(value, 3) for name, value, _ in parts},
        "needs": [] if last_checkpoint is not None else ["the last complete checkpoint"],
        "formula": " + ".join(text for _, _, text in parts) + f" = {total:.1f} GPU-h",
    }


@dataclass(frozen=True, slots=True)
class CheckpointEstimate:
    """Where the job's last complete checkpoint is taken to be when no time was recorded."""

    at: datetime
    source: str  # "listing" or "interval"
    text: str  # the working, for the page and the statement


def estimate_checkpoint(
    *,
    failed_at: datetime,
    rewind_steps: int | None = None,
    checkpoint_step: int | None = None,
    step_seconds: float | None = None,
    interval_minutes: int | None = None,
) -> CheckpointEstimate | None:
    """The last checkpoint before `failed_at`, estimated. From the failed run's checkpoint
    listing when it gives the steps since the newest complete checkpoint and a step time is
    known (steps × step time); else from the buyer's declared checkpoint interval: half of it.

    Half, not the whole: with checkpoints every T minutes and a failure that can fall anywhere
    in between, the work lost is T/2 on average; the whole interval is only the worst case, and
    charging every incident the worst case would overstate the lost time of all of them. The
    interval is the buyer's lever (seed 002), the expected loss its fair price. None when
    neither source is given."""
    if rewind_steps is not None and rewind_steps >= 0 and step_seconds and step_seconds > 0:
        seconds = rewind_steps * step_seconds
        at = failed_at - timedelta(seconds=seconds)
        where = f" since checkpoint step {checkpoint_step}" if checkpoint_step is not None else ""
        return CheckpointEstimate(at, "listing", (
            f"estimated from the checkpoint listing: {rewind_steps} steps{where} × "
            f"{step_seconds:g} s a step = {seconds / 60:.1f} min before the failure "
            f"({_utc(at)})"
        ))  # fmt: skip
    if interval_minutes is not None and interval_minutes > 0:
        minutes = interval_minutes / 2
        at = failed_at - timedelta(minutes=minutes)
        return CheckpointEstimate(at, "interval", (
            f"estimated from the buyer's checkpoint interval: half of every {interval_minutes} "
            f"min = {minutes:g} min before the failure ({_utc(at)}), the expected loss when a "
            "failure can fall anywhere in the interval"
        ))  # fmt: skip
    return None
