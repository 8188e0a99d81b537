"""Lost GPU-hours: the step-time baseline an incident is judged against, the checkpoint mark
(recorded or estimated) and the five parts of seed 002."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from acceptance.models import Reservation
from engine import failures
from engine.failures import incident as failures_incident
from incidents.models import (
    BaselineProposal,
    BaselineProposalStatus,
    Incident,
)
from incidents.selectors.recovery import contract_shape, repaired_nodes


def agreed_baseline(reservation: Reservation) -> BaselineProposal | None:
    """The buyer's proposed baseline the provider accepted last, if any."""
    return (
        BaselineProposal.objects.filter(
            reservation=reservation, status=BaselineProposalStatus.ACCEPTED
        )
        .select_related("proposed_by", "decided_by")
        .order_by("-decided_at", "-pk")
        .first()
    )


def step_time_baseline(reservation: Reservation) -> tuple[float | None, str]:
    """The job's step time a degraded-throughput verdict is measured against, and where it
    comes from: a baseline the buyer proposed and the provider accepted, else the hand-over
    baseline's burn-in median. None when neither records a step time (no step-times evidence
    in the accepted run, or the contracted thresholds)."""
    agreed = agreed_baseline(reservation)
    if agreed is not None:
        return agreed.step_time_s, (
            f"baseline agreed by both parties: {agreed.original_name} (proposal #{agreed.pk} by "
            f"{agreed.proposed_by}, accepted by {agreed.decided_by}), median step time"
        )
    baseline = getattr(reservation, "baseline", None)
    if baseline is None:
        return None, "no hand-over baseline"
    value = ((baseline.snapshot or {}).get("step_times") or {}).get("run_median_s")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None, f"the hand-over baseline (run #{baseline.run_id}) records no step time"
    return float(value), f"hand-over baseline, burn-in run #{baseline.run_id} median step time"


def incident_step_baseline(incident: Incident) -> tuple[float | None, str]:
    """The baseline the incident was opened against (an agreed one stays with it), else the
    reservation's hand-over baseline."""
    found = incident.degraded or {}
    value = found.get("baseline_s")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value), str(found.get("baseline_source") or "the incident's baseline")
    return step_time_baseline(incident.reservation)


def checkpoint_mark(
    incident: Incident, *, failed_at: datetime | None
) -> tuple[datetime | None, str]:
    """The last complete checkpoint the lost time counts back to, and how it is known: the
    recorded time; else estimated from the failed run's checkpoint listing (the steps since its
    newest complete checkpoint × the job's step time), else from the buyer's declared
    checkpoint interval (half of it); (None, "") when none of these is there."""
    if incident.last_checkpoint_at is not None:
        return incident.last_checkpoint_at, ""
    if failed_at is None:
        return None, ""
    # An inconclusive listing may hide a newer checkpoint: its rewind would overstate the loss.
    listing = incident.checkpoint if (incident.checkpoint or {}).get("status") == "complete" else {}
    rewind, step = (listing or {}).get("rewind_steps"), (listing or {}).get("step")
    step_s = incident_step_baseline(incident)[0] if isinstance(rewind, int) else None
    estimate = failures.estimate_checkpoint(
        failed_at=failed_at,
        rewind_steps=rewind if isinstance(rewind, int) else None,
        checkpoint_step=step if isinstance(step, int) else None,
        step_seconds=step_s,
        interval_minutes=incident.reservation.request.checkpoint_interval_minutes,
    )
    if estimate is None:
        return None, ""
    return estimate.at, estimate.text


def lost_time(incident: Incident) -> dict[str, Any]:
    """GPU-hours per phase, or the marks still missing. Without a recorded checkpoint time the
    rollback is estimated (`checkpoint_mark`), and `checkpoint_source` says how."""
    checkpoint, source = checkpoint_mark(incident, failed_at=incident.failed_at)
    marks = {
        "last checkpoint": checkpoint,
        "failure": incident.failed_at,
        "detection (incident opened)": incident.opened_at,
        "repair (restored)": incident.restored_at,
        "revalidation": incident.revalidated_at,
        "restart": incident.restarted_at,
    }
    missing = [k for k, v in marks.items() if v is None]
    if incident.gpus is None:
        missing.append("GPU count")
    if missing:
        return {"missing": missing, "rows": None}
    try:
        hours = failures.lost_gpu_hours(
            gpus=incident.gpus or 0,
            last_checkpoint=marks["last checkpoint"],  # type: ignore[arg-type]
            failed_at=marks["failure"],  # type: ignore[arg-type]
            detected_at=marks["detection (incident opened)"],  # type: ignore[arg-type]
            repaired_at=marks["repair (restored)"],  # type: ignore[arg-type]
            revalidated_at=marks["revalidation"],  # type: ignore[arg-type]
            restarted_at=marks["restart"],  # type: ignore[arg-type]
        )
    except failures.IncidentTermsError as exc:
        return {"missing": [], "rows": None, "error": str(exc)}
    labels = {
        "work_since_checkpoint": "Work since the last checkpoint",
        "detection": "Detection",
        "repair": "Repair",
        "revalidation": "Revalidation",
        "restart": "Restart and load",
    }
    rows = [{"label": labels[k], "gpu_hours": hours[k]} for k in labels]
    return {"missing": [], "rows": rows, "total": hours["total"], "checkpoint_source": source}


def partial_lost_time(incident: Incident) -> dict[str, Any]:
    """S3 (partial capacity): the rollback to the last checkpoint and the whole job's stop until
    it restarted on fewer nodes (every GPU of the job), then the missing nodes' GPUs until the
    restore, from the node going out (the window's start, else the opening); or what is still
    missing."""
    nodes = repaired_nodes(incident)
    out_at = incident.window_start or incident.opened_at
    missing = []
    if not nodes:
        missing.append("the nodes out")
    if not incident.gpus_per_node:
        missing.append("GPUs per node (the awarded bid gives none)")
    if incident.restored_at is None:
        missing.append("the restore")
    if missing:
        return {"missing": missing, "result": None}
    contracted_nodes, _per_node, _model = contract_shape(incident.reservation)
    job_gpus = incident.gpus or (contracted_nodes or 0) * (incident.gpus_per_node or 0)
    checkpoint, source = checkpoint_mark(incident, failed_at=out_at)
    try:
        result = failures_incident.partial_gpu_hours(
            nodes_out=len(nodes),
            gpus_per_node=incident.gpus_per_node or 0,
            out_at=out_at,
            restored_at=incident.restored_at,  # type: ignore[arg-type]
            all_gpus=job_gpus or None,
            fewer_nodes_at=incident.fewer_nodes_at,
            last_checkpoint=checkpoint,
        )
    except failures.IncidentTermsError as exc:
        return {"missing": [], "result": None, "error": str(exc)}
    return {"missing": [], "result": result | {"checkpoint_source": source}}
