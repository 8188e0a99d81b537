"""The incident record: open, clocks, evidence, sign-offs, close. Keyword-only writes. Failed-run
uploads and their analysis live in `incidents.failed_runs` (re-exported here)."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict, ServiceError
from core.lifecycle import MoveRefused, require_confirmation
from core.uploads import check_upload
from engine import failures
from engine.evidence.parsers import ParseError, parse_evidence, to_json
from engine.failures import checkpoints as ckpt
from engine.failures import degraded
from engine.failures import window as win
from incidents.failed_runs import (
    default_world_size as default_world_size,
)
from incidents.failed_runs import (
    failed_run_analyse as failed_run_analyse,
)
from incidents.failed_runs import (
    failed_run_mark_error as failed_run_mark_error,
)
from incidents.failed_runs import (
    failed_run_retry as failed_run_retry,
)
from incidents.failed_runs import (
    failed_run_upload as failed_run_upload,
)
from incidents.failed_runs import (
    require_accepted,
)
from incidents.lifecycle import (
    close_decision,
    incident_actor,
    incident_move,
    item_owner,
    require_item_party,
    require_open_move,
)
from incidents.models import (
    ChecklistDispute,
    ChecklistSignoff,
    FailedRun,
    FailedRunState,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    Signal,
)
from incidents.notices import incident_closed_notify
from incidents.selectors import (
    checklist_states,
    incident_step_baseline,
    node_in_name,
    repaired_nodes,
)
from incidents.services.opening import check_reservation_nodes, check_severity, create_incident
from incidents.services.records import _record
from incidents.services.severity import (
    breaches_sweep as breaches_sweep,
)
from incidents.services.severity import (
    incident_acknowledge as incident_acknowledge,
)
from incidents.services.severity import (
    incident_breaches_record,
)
from incidents.services.severity import (
    incident_dispute_opening as incident_dispute_opening,
)
from incidents.services.severity import (
    incident_severity_accept as incident_severity_accept,
)
from incidents.services.severity import (
    incident_severity_propose as incident_severity_propose,
)
from incidents.services.severity import (
    incident_severity_reject as incident_severity_reject,
)


def propose(analysis: dict[str, Any]) -> failures.SeverityProposal:
    """`propose_severity` on the stored analysis (the fields it reads, from the JSON)."""
    view = SimpleNamespace(
        initiating_node=analysis.get("initiating_node"),
        secondary_ranks=analysis.get("secondary_ranks") or [],
        launcher_root_cause=analysis.get("launcher_root_cause"),
        first_failure=analysis.get("first_failure"),
    )
    return failures.propose_severity(cast(Any, view))


_check_severity = check_severity


@transaction.atomic
def incident_open(
    *,
    failed_run: FailedRun,
    user: User,
    severity: str = "",
    reason: str = "",
    now: datetime | None = None,
) -> Incident:
    """Open the incident from an analysed failed run; the clocks start now, from the terms the
    provider acknowledged (`create_incident`, as every door)."""
    run = FailedRun.objects.select_for_update().select_related("reservation").get(pk=failed_run.pk)
    require_accepted(run.reservation)
    party = require_open_move(run.reservation, user=user)
    if run.state != FailedRunState.ANALYSED or not run.analysis:
        raise Conflict("Open an incident from an analysed failed run: this one is not yet.")
    if Incident.objects.filter(failed_run=run).exists():
        raise Conflict("This failed run already has an incident.")
    analysis = run.analysis
    proposal = propose(analysis)
    chosen = severity or proposal.severity
    _check_severity(chosen)
    if chosen != proposal.severity and not reason.strip():
        raise ValidationError(
            {"reason": [f"{proposal.severity} was proposed ({proposal.reason}); say why {chosen}."]}
        )
    first = analysis.get("first_failure") or {}
    # A failing line with no timestamp of its own was printed between its neighbours' times:
    # the clocks start at the earlier bound, the last moment the run was known to be working.
    failed_at = _parse_time(first.get("time") or (first.get("time_range") or {}).get("after"))
    # No `nodes` of its own: `repaired_nodes` reads the analysis's initiating node.
    return create_incident(
        reservation=run.reservation,
        user=user,
        severity=chosen,
        proposed=proposal.severity,
        reason=reason.strip() or proposal.reason,
        signal=Signal.FAILED_RUN,
        party=party,
        summary=str(analysis.get("summary") or ""),
        window_start=failed_at,
        failed_run=run,
        failed_at=failed_at,
        window=win.incident_window([], failure_time=failed_at).to_json(),
        gpus=run.world_size,
        suggested_owner=failures.contract_owner(analysis.get("suggested_owner")),
        owner_reasons=list(analysis.get("owner_reasons") or []),
        now=now,
    )


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


@transaction.atomic
def incident_mark(
    *, incident: Incident, user: User, what: str, now: datetime | None = None
) -> Incident:
    """Record the first response or the restore (once each; a clock stops there). The provider
    records both; the buyer confirms the end by closing."""
    if what not in ("responded", "restored"):
        raise ServiceError("Record either the response or the restore.")
    incident_move(incident, what, user=user)
    if getattr(incident, f"{what}_at") is not None:
        raise Conflict(f"{what.capitalize()} is already recorded.")
    # A clock that ran out before this mark is stored as breached before the mark stops it.
    incident_breaches_record(incident=incident, now=now or timezone.now())
    setattr(incident, f"{what}_at", now or timezone.now())
    setattr(incident, f"{what}_by", user)
    incident.save(update_fields=[f"{what}_at", f"{what}_by"])
    _record(
        incident, f"incident.{what}", user, after={f"{what}_at": getattr(incident, f"{what}_at")}
    )
    return incident


@transaction.atomic
def incident_evidence_upload(
    *, incident: Incident, user: User, upload: UploadedFile, kind: str, node: str = ""
) -> IncidentEvidence:
    """Store the bytes first, then read them; a file that cannot be read says why.

    Diagnostics record the node they ran on (`node`, else a repaired node the file name names):
    the checklist counts only runs from the repaired node(s)."""
    incident_move(incident, "evidence", user=user)
    if kind not in IncidentEvidenceKind.values:
        raise ValidationError({"kind": ["Choose what the file is."]})
    if node.strip():
        check_reservation_nodes(
            incident.reservation, [node.strip()], field="node", also=repaired_nodes(incident)
        )
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    row = IncidentEvidence(incident=incident, kind=kind, uploaded_by=user)
    row.store(upload)
    row.save()
    name = row.original_name
    data = row.read_bytes()
    try:
        row.parsed = _parse(kind, data, name, incident)
        if kind == IncidentEvidenceKind.DIAG:
            row.parsed["node"] = node.strip() or node_in_name(name, repaired_nodes(incident))
        row.ok = True
    except (ParseError, failures.FailureInputError) as exc:
        row.error = str(exc)
    row.save(update_fields=["parsed", "ok", "error"])
    if row.ok and kind == IncidentEvidenceKind.CHECKPOINTS:
        incident.checkpoint = row.parsed
        incident.save(update_fields=["checkpoint"])
    if row.ok and kind == IncidentEvidenceKind.STEP_LOG:
        incident.window = row.parsed
        incident.save(update_fields=["window"])
    # An unreadable file is evidence too (its error says why): on the record either way.
    node_read = (row.parsed or {}).get("node") if row.ok else None
    _record(
        incident,
        "incident.evidence",
        user,
        after={
            "file": row.original_name,
            "kind": kind,
            "sha256": row.sha256,
            "read": row.ok,
            **({"node": node_read} if node_read else {}),
        },
    )
    return row


def _parse(kind: str, data: bytes, name: str, incident: Incident) -> dict[str, Any]:
    if kind in ("nccl-tests", "dcgmi-diag"):
        return to_json(parse_evidence(data, kind=kind))
    if kind in ("smoke-steps", "pre-steps"):
        return to_json(parse_evidence(data, kind="step-times"))
    if kind == IncidentEvidenceKind.TRAINING_LOG:
        return failures.parse_loss_log(data, name=name).to_json()
    window = incident.window or {}
    failing = window.get("first_bad_step")
    if kind == IncidentEvidenceKind.CHECKPOINTS:
        listing = ckpt.parse_listing(data, name=name)
        return ckpt.assess_checkpoints(listing, failing_step=failing).to_json()
    baseline, basis = incident_step_baseline(incident)
    if kind == IncidentEvidenceKind.RANK_STEPS:
        rows = degraded.parse_rank_steps(data, name=name)
        return degraded.detect_degraded(
            rows,
            baseline_s=baseline,
            baseline_source=basis,
            threshold_pct=incident.degraded_pct if incident.degraded_pct is not None else 10.0,
            window_minutes=incident.degraded_window_minutes,
        ).to_json()
    records = win.parse_step_records(data, name=name)
    return win.incident_window(
        records,
        failure_time=incident.failed_at,
        degraded_pct=incident.degraded_pct,
        baseline_seconds=baseline,
        window_minutes=incident.degraded_window_minutes,
    ).to_json()


@transaction.atomic
def incident_signoff(
    *, incident: Incident, user: User, key: str, note: str, now: datetime | None = None
) -> ChecklistSignoff:
    """The item's owner signs it off with a note of what was checked."""
    incident_move(incident, "signoff", user=user)
    states = {s.key: s for s in checklist_states(incident)}
    state = states.get(key)
    if state is None:
        raise ServiceError("That item is not on this incident's checklist.")
    if not state.signable:
        raise ServiceError(f"“{state.text}” is checked against uploaded evidence, not signed off.")
    require_item_party(incident, key, user=user, owner=True)
    _require_waited(incident, key, now or timezone.now())
    if not note.strip():
        raise ValidationError({"note": ["Write what was checked; the note is the evidence."]})
    previous = ChecklistSignoff.objects.filter(incident=incident, key=key).first()
    signoff, _ = ChecklistSignoff.objects.update_or_create(
        incident=incident, key=key, defaults={"note": note.strip(), "by": user}
    )
    _record(
        incident,
        "incident.signoff",
        user,
        before={"item": key, "note": previous.note} if previous else {},
        after={"item": key, "note": signoff.note},
    )
    return signoff


def _require_waited(incident: Incident, key: str, now: datetime) -> None:
    """'No recurrence for N hours' can only be signed N hours after the restore."""
    if key != "no_recurrence_hours":
        return
    hours = next((i.get("threshold") for i in incident.checklist if i["key"] == key), None)
    if incident.restored_at is None:
        raise ServiceError("Declare the restore first: no recurrence is counted from it.")
    if hours and now < incident.restored_at + timedelta(hours=float(hours)):
        ready = incident.restored_at + timedelta(hours=float(hours))
        raise ServiceError(
            f"No recurrence for {hours:g} hours can be signed from {ready:%Y-%m-%d %H:%M} UTC "
            "on, that long after the restore."
        )


@transaction.atomic
def incident_dispute(*, incident: Incident, user: User, key: str, reason: str) -> ChecklistDispute:
    """The other party disputes a sign-off: recorded with its reason, and the item reopens."""
    incident_move(incident, "dispute", user=user)
    if key not in {s.key for s in checklist_states(incident)}:
        raise ValidationError({"key": ["That item is not on this incident's checklist."]})
    party = require_item_party(incident, key, user=user, owner=False)
    signoff = ChecklistSignoff.objects.filter(incident=incident, key=key).first()
    if signoff is None:  # it may be signed off later: a refusal by state
        raise Conflict("Only a signed-off item can be disputed.")
    if not reason.strip():
        raise ValidationError({"reason": ["Say why: the dispute and its reason are on record."]})
    dispute = ChecklistDispute.objects.create(
        incident=incident,
        key=key,
        disputed_note=signoff.note,
        disputed_by_party=item_owner(key),
        reason=reason.strip(),
        party=party,
        by=user,
    )
    _record(
        incident,
        "incident.dispute",
        user,
        before={"key": key, "signed": signoff.note},
        after={"key": key, "signed": None},
        reason=dispute.reason,
    )
    signoff.delete()
    return dispute


@transaction.atomic
@transaction.atomic
def incident_set_times(*, incident: Incident, user: User | None, **marks: Any) -> Incident:
    """Lost-time marks (UTC) and the GPU count; `None` leaves a mark empty. They decide the
    lost GPU-hours, so each change is on the record with who made it."""
    allowed = {"failed_at", "last_checkpoint_at", "revalidated_at", "restarted_at", "gpus"}
    before: dict[str, Any] = {}
    for key, value in marks.items():
        if key not in allowed:
            raise ServiceError(f"unknown mark {key}")
        if getattr(incident, key) != value:
            before[key] = getattr(incident, key)
        setattr(incident, key, value)
    incident.save(update_fields=list(marks))
    if before:
        after = {k: getattr(incident, k) for k in before}
        _record(incident, "incident.times", user, before=before, after=after)
    return incident


@transaction.atomic
def incident_close(
    *, incident: Incident, user: User, now: datetime | None = None, confirmed: bool = False
) -> Incident:
    """Close only when every checklist item passes; otherwise say which do not. The buyer
    confirms the end of an S1 or S2 (explicitly: `confirmed`); either party may close an S3."""
    incident = Incident.objects.select_for_update().get(pk=incident.pk)
    decision = close_decision(incident, actor=incident_actor(incident, user))
    if not decision.allowed:
        raise MoveRefused(decision)  # type: ignore[arg-type]
    require_confirmation(decision, confirmed=confirmed)
    open_items = [s for s in checklist_states(incident) if not s.passed]
    if open_items:
        raise Conflict(
            "The recovery checklist has not passed: "
            + "; ".join(f"{s.text} ({s.status})" for s in open_items)
        )
    when = now or timezone.now()
    incident_breaches_record(incident=incident, now=when)
    incident.closed_at, incident.closed_by = when, user
    if incident.restored_at is None:
        incident.restored_at, incident.restored_by = when, user
    if incident.revalidated_at is None:
        incident.revalidated_at = when
    incident.save()
    _record(incident, "incident.close", user, after={"closed_at": when})
    incident_closed_notify(incident=incident)
    return incident
