"""Opening an incident, from any signal: the provider's alert or drained node, the buyer's slow
job, a sustained step-time rise (S2), or a failed-run analysis. Every door freezes the clocks
and the checklist from the terms the same way (`create_incident`), tells both parties and
writes an audit entry. A failed-run analysis may also attach to an incident already open."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile, UploadedFile
from django.db import transaction
from django.utils import timezone

from acceptance.audit import record_on_reservation
from acceptance.models import Reservation
from bids.models.requests import term_end_utc
from core.errors import ServiceError
from core.uploads import check_upload
from engine import failures
from engine.failures import degraded as deg
from incidents.failed_runs import require_accepted
from incidents.lifecycle import incident_move, require_open_move
from incidents.models import (
    FailedRun,
    FailedRunState,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    Severity,
    Signal,
    StepTimesUpload,
)
from incidents.notices import incident_opened_notify
from incidents.selectors import reservation_nodes, step_time_baseline, terms_for
from incidents.services.owner import hand_owner, owner_with_analysis
from incidents.services.records import _record

NODE_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,62}$")
MAX_NODES = 256
# The signals a party names when it opens by hand (failed runs and step times have own doors).
HAND_SIGNALS = {
    "provider": (Signal.ALERT, Signal.DRAINED_NODE, Signal.OTHER),
    "buyer": (Signal.SLOW_JOB, Signal.OTHER),
}


def check_severity(severity: str) -> None:
    if severity not in Severity.values:
        raise ValidationError({"severity": [f"Choose one of {', '.join(Severity.values)}."]})


def clean_nodes(nodes: str | Iterable[str], *, field: str = "nodes") -> list[str]:
    """Node labels from a list or from text (commas, spaces or new lines between them)."""
    items = re.split(r"[\s,;]+", nodes) if isinstance(nodes, str) else list(nodes)
    labels = [str(n).strip() for n in items if str(n).strip()]
    if not labels:
        raise ValidationError({field: ["Name at least one affected node (its label)."]})
    if len(labels) > MAX_NODES:
        raise ValidationError({field: [f"At most {MAX_NODES} nodes; {len(labels)} given."]})
    bad = [n for n in labels if not NODE_LABEL.match(n)]
    if bad:
        raise ValidationError(
            {field: [f"“{bad[0][:80]}” is not a node label: use letters, digits and . _ : - "
                     "(at most 63 characters, starting with a letter or digit)."]}
        )  # fmt: skip
    seen: set[str] = set()
    dupes = [n for n in labels if n.lower() in seen or seen.add(n.lower())]  # type: ignore[func-returns-value]
    if dupes:
        raise ValidationError({field: [f"{dupes[0]} is named twice."]})
    return labels


def clean_window(
    start: datetime | None, end: datetime | None, *, now: datetime
) -> tuple[datetime, datetime | None]:
    if start is None:
        raise ValidationError({"window_start": ["Give the UTC time the problem started."]})
    if start > now:
        raise ValidationError(
            {"window_start": [f"{start:%Y-%m-%d %H:%M} UTC is in the future; give when it began."]}
        )
    if end is not None and end <= start:
        raise ValidationError(
            {"window_end": [f"The end must come after the start ({start:%Y-%m-%d %H:%M} UTC)."]}
        )
    return start, end


def _utc(value: datetime) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC"


def check_in_term(
    reservation: Reservation, start: datetime, end: datetime | None, *, now: datetime
) -> None:
    """An incident both parties can see lies inside the reservation's term: not before the
    clock start (the buyer's acceptance), not after the term's end, not in the future."""
    clock_start = reservation.clock_start
    if clock_start is not None and start < clock_start:
        raise ValidationError(
            {"window_start": [f"{_utc(start)} is before the reservation's term began "
                              f"({_utc(clock_start)}, the acceptance)."]}
        )  # fmt: skip
    term_end = term_end_utc(reservation.term_end)
    if start >= term_end:
        raise ValidationError(
            {"window_start": [f"{_utc(start)} is after the reservation's term ended "
                              f"({_utc(term_end)})."]}
        )  # fmt: skip
    if end is not None and end > now:
        raise ValidationError(
            {"window_end": [f"{_utc(end)} is in the future; leave the end empty while it lasts."]}
        )


def check_reservation_nodes(
    reservation: Reservation, labels: list[str], *, field: str = "nodes", also: Sequence[str] = ()
) -> None:
    """Every node named is one of the reservation's (its hand-over baseline and burn-in
    evidence) or one of `also` (an incident's own nodes, as its analysis named them). Where
    nothing names the reservation's nodes, any label is taken."""
    known = reservation_nodes(reservation)
    if not known:
        return
    known = list(dict.fromkeys([*known, *also]))
    lowered = {n.lower() for n in known}
    foreign = [n for n in labels if n.lower() not in lowered]
    if foreign:
        shown = ", ".join(known[:8]) + (" …" if len(known) > 8 else "")
        raise ValidationError(
            {field: [f"{', '.join(foreign[:5])} {'is' if len(foreign) == 1 else 'are'} not a "
                       f"node of this reservation ({shown})."]}
        )  # fmt: skip


def gpus_per_node(reservation: Reservation) -> int | None:
    """The lot's, for a split award's reservation; else from the awarded bid, else the request."""
    if reservation.lot is not None:
        return reservation.lot.gpus_per_node
    return reservation.bid.gpus_per_node or reservation.request.gpus_per_node or None


def create_incident(
    *,
    reservation: Reservation,
    user: User,
    severity: str,
    proposed: str,
    reason: str,
    signal: str,
    party: str = "",
    summary: str = "",
    nodes: list[str] | None = None,
    window_start: datetime | None = None,
    window_end: datetime | None = None,
    failed_run: FailedRun | None = None,
    failed_at: datetime | None = None,
    window: dict[str, Any] | None = None,
    gpus: int | None = None,
    degraded: dict[str, Any] | None = None,
    suggested_owner: str = "undetermined",
    owner_reasons: list[str] | None = None,
    now: datetime | None = None,
    audit: dict[str, Any] | None = None,
) -> Incident:
    """The one way an incident comes to be: clocks and checklist frozen from the terms the
    provider acknowledged; both parties told; an audit entry."""
    check_severity(severity)
    revision, snapshot, source = terms_for(reservation)
    clocks = failures.terms_clocks(snapshot)
    if not clocks.get(severity):
        raise ServiceError(f"The terms give no {severity} clocks.")
    items = failures.recovery_checklist(failures.terms_recovery(snapshot))
    pct = snapshot.get("degraded_step_time_pct")
    per_node = gpus_per_node(reservation)
    incident = Incident.objects.create(
        reservation=reservation,
        failed_run=failed_run,
        severity=severity,
        proposed_severity=proposed,
        severity_reason=reason,
        summary=summary[:2000],
        suggested_owner=suggested_owner,
        owner_reasons=owner_reasons or [],
        window=window or {},
        terms_revision=revision,
        terms_source=source,
        clocks=clocks,
        checklist=[
            {"key": i.key, "text": i.text, "evidence": i.evidence, "threshold": i.threshold}
            for i in items
        ],
        degraded_pct=float(pct) if pct not in (None, "") else None,
        degraded_window_minutes=int(snapshot.get("degraded_window_minutes") or 15),
        gpus=gpus if gpus is not None else (len(nodes) * per_node if nodes and per_node else None),
        opened_by=user,
        opened_at=now or timezone.now(),
        failed_at=failed_at,
        signal=signal,
        opened_by_party=party,
        nodes=nodes or [],
        window_start=window_start,
        window_end=window_end,
        degraded=degraded,
        gpus_per_node=per_node,
    )
    _record(
        incident,
        "incident.open",
        user,
        after={"severity": severity, "proposed_severity": proposed, "signal": signal,
               **(audit or {})},
        reason=reason if reason != summary else "",
    )  # fmt: skip
    incident_opened_notify(incident=incident)
    return incident


@transaction.atomic
def incident_open_signal(
    *,
    reservation: Reservation,
    user: User,
    severity: str,
    nodes: str | Iterable[str],
    window_start: datetime | None,
    window_end: datetime | None = None,
    signal: str,
    summary: str,
    now: datetime | None = None,
) -> Incident:
    """Either party opens an incident from its own signal; the clocks start now."""
    require_accepted(reservation)
    party = require_open_move(reservation, user=user)
    when = now or timezone.now()
    check_severity(severity)
    allowed = HAND_SIGNALS[party]
    if signal not in allowed:
        names = ", ".join(str(Signal(s).label).lower() for s in allowed)
        raise ValidationError({"signal": [f"The {party} opens from: {names}."]})
    labels = clean_nodes(nodes)
    check_reservation_nodes(reservation, labels)
    start, end = clean_window(window_start, window_end, now=when)
    check_in_term(reservation, start, end, now=when)
    if not summary.strip():
        raise ValidationError({"summary": ["Say what was seen; both parties read it."]})
    text = summary.strip()
    owner, owner_reasons = hand_owner(signal, party)
    return create_incident(
        reservation=reservation,
        user=user,
        severity=severity,
        proposed=severity,
        reason=f"opened by the {party} from {Signal(signal).label.lower()}",
        signal=signal,
        party=party,
        summary=text,
        nodes=labels,
        window_start=start,
        window_end=end,
        failed_at=start,
        suggested_owner=owner,
        owner_reasons=owner_reasons,
        now=when,
        audit={"nodes": labels, "window_start": start, "window_end": end, "party": party},
    )


@transaction.atomic
def incident_attach_failed_run(
    *, incident: Incident, failed_run: FailedRun, user: User
) -> Incident:
    """Attach an analysed failed run to an open incident of its reservation that has none.
    The incident takes the analysis's initiating node when it names no nodes yet."""
    incident = Incident.objects.select_for_update().get(pk=incident.pk)
    run = FailedRun.objects.select_for_update().get(pk=failed_run.pk)
    incident_move(incident, "attach", user=user)
    if run.reservation_id != incident.reservation_id:
        raise ServiceError("That failed run belongs to another reservation.")
    if run.state != FailedRunState.ANALYSED or not run.analysis:
        raise ServiceError("Attach an analysed failed run; this one is not analysed yet.")
    if Incident.objects.filter(failed_run=run).exists():
        raise ServiceError("This failed run is already attached to an incident.")
    if incident.failed_run_id is not None:
        raise ServiceError(f"Incident #{incident.pk} already has a failed-run analysis.")
    owned = incident.suggested_owner
    before = {"failed_run": None, "nodes": list(incident.nodes), "suggested_owner": owned}
    incident.failed_run = run
    fields = ["failed_run"]
    node = run.analysis.get("initiating_node")
    if not incident.nodes and isinstance(node, str) and node:
        incident.nodes = [node]
        fields.append("nodes")
    if not incident.summary and run.analysis.get("summary"):
        incident.summary = str(run.analysis["summary"])[:2000]
        fields.append("summary")
    incident.suggested_owner, incident.owner_reasons = owner_with_analysis(
        owner=incident.suggested_owner, reasons=incident.owner_reasons, analysis=run.analysis
    )
    fields += ["suggested_owner", "owner_reasons"]
    incident.save(update_fields=fields)
    _record(
        incident,
        "incident.attach",
        user,
        before=before,
        after={
            "failed_run": run.pk,
            "label": run.label,
            "nodes": list(incident.nodes),
            "suggested_owner": incident.suggested_owner,
        },
    )
    return incident


def _stored_copy(row: StepTimesUpload) -> SimpleUploadedFile:
    return SimpleUploadedFile(row.original_name, row.read_bytes(), content_type="text/csv")


@transaction.atomic
def step_times_upload(
    *,
    reservation: Reservation,
    user: User,
    upload: UploadedFile,
    rank_map: UploadedFile | None = None,
    nodes: str | Iterable[str] = "",
    summary: str = "",
    baseline_s: float | None = None,
    baseline_source: str = "",
    now: datetime | None = None,
) -> StepTimesUpload:
    """Store the per-rank step times, then judge them by the terms' definition of degraded
    against the job's baseline: `baseline_s` when the caller passes one both parties agreed,
    else the hand-over baseline's step time. A sustained rise opens an S2 (failed_at at its
    first slow step, the slowest ranks and their nodes, the rank map) and keeps the file as the
    incident's evidence; anything else (a blip, a short log, no rise, no baseline) is stored
    with what was found and opens nothing. Unreadable input is a field error."""
    require_accepted(reservation)
    party = require_open_move(reservation, user=user)
    check_upload(upload, limit=settings.EVIDENCE_MAX_BYTES, field="file")
    named = clean_nodes(nodes) if (nodes if isinstance(nodes, str) else list(nodes)) else []
    row = StepTimesUpload(reservation=reservation, uploaded_by=user)
    row.store(upload)
    rmap = _read_rank_map(row, rank_map)
    row.save()
    # Kept as evidence whether or not it opens an incident: on the reservation's record.
    record_on_reservation(
        reservation=reservation,
        action="steps.upload",
        user=user,
        after={"file": row.original_name, "sha256": row.sha256},
    )
    _revision, snapshot, source = terms_for(reservation)
    pct = float(snapshot.get("degraded_step_time_pct") or 10)
    minutes = float(snapshot.get("degraded_window_minutes") or 15)
    baseline, basis = (
        (baseline_s, baseline_source or "a baseline both parties agreed")
        if baseline_s is not None
        else step_time_baseline(reservation)
    )
    try:
        rows = deg.parse_rank_steps(row.read_bytes(), name=row.original_name)
    except failures.FailureInputError as exc:
        row.error = str(exc)
        row.save(update_fields=["error"])
        return row
    found = deg.detect_degraded(
        rows,
        baseline_s=baseline,
        baseline_source=basis,
        threshold_pct=pct,
        window_minutes=minutes,
        rank_map=rmap,
    )
    result = {**found.to_json(), "terms_source": source, "file": row.original_name,
              "sha256": row.sha256, "rank_map_file": row.rank_map_name if rmap else ""}  # fmt: skip
    row.result = result
    row.save(update_fields=["result", "rank_map_name"])
    if not found.qualifies:
        return row
    return _open_s2(row, found, result, user=user, party=party, named=named, summary=summary,
                    now=now)  # fmt: skip


def _read_rank_map(row: StepTimesUpload, rank_map: UploadedFile | None) -> failures.RankMap | None:
    """The rank → node map uploaded beside the step times, named on the row; a field error
    when it cannot be read."""
    if rank_map is None:
        return None
    check_upload(rank_map, limit=settings.EVIDENCE_MAX_BYTES, field="rank_map")
    row.rank_map_name = (rank_map.name or "rank map")[:255]
    try:
        return failures.parse_rank_map(rank_map.read(), name=row.rank_map_name)
    except failures.FailureInputError as exc:
        raise ValidationError({"rank_map": [str(exc)]}) from None


def _open_s2(
    row: StepTimesUpload,
    found: deg.Degraded,
    result: dict[str, Any],
    *,
    user: User,
    party: str,
    named: list[str],
    summary: str,
    now: datetime | None,
) -> StepTimesUpload:
    """The S2 itself: its window opens (and its failure time is) the first slow step."""
    labels = named or found.nodes
    if not labels:
        raise ValidationError(
            {"nodes": ["No rank stands out and the file places no rank on a node: name the "
                       "affected nodes, or add a rank → node map."]}
        )  # fmt: skip
    check_reservation_nodes(row.reservation, labels)
    incident = create_incident(
        reservation=row.reservation,
        user=user,
        severity=Severity.S2,
        proposed=Severity.S2,
        reason=found.message,
        signal=Signal.STEP_TIMES,
        party=party,
        summary=summary.strip() or found.message,
        nodes=labels,
        window_start=found.window_start,
        window_end=found.window_end,
        failed_at=found.window_start,
        window=found.window().to_json(),
        degraded=result,
        now=now or timezone.now(),
        audit={"nodes": labels, "window_start": found.window_start,
               "window_end": found.window_end, "party": party, "file": row.original_name},
    )  # fmt: skip
    evidence = IncidentEvidence(
        incident=incident, kind=IncidentEvidenceKind.RANK_STEPS, uploaded_by=user, ok=True,
        parsed=result,
    )  # fmt: skip
    evidence.store(_stored_copy(row), sha256=row.sha256)
    evidence.save()
    row.incident = incident
    row.save(update_fields=["incident"])
    return row


@transaction.atomic
def incident_fewer_nodes(
    *,
    incident: Incident,
    user: User,
    at: datetime | None,
    continuing_nodes: int | None,
    now: datetime | None = None,
) -> Incident:
    """S3: the job restarted on fewer nodes while the repair runs (when, and on how many)."""
    incident_move(incident, "fewer_nodes", user=user)
    when = now or timezone.now()
    if at is None:
        raise ValidationError({"at": ["Give the UTC time the job restarted on fewer nodes."]})
    if at > when:
        raise ValidationError({"at": [f"{at:%Y-%m-%d %H:%M} UTC is in the future."]})
    start = incident.window_start or incident.opened_at
    if at < start:
        raise ValidationError(
            {"at": [f"The restart comes before the node went out ({start:%Y-%m-%d %H:%M} UTC)."]}
        )
    if not continuing_nodes or continuing_nodes < 1:
        raise ValidationError({"continuing_nodes": ["Give how many nodes the job runs on now."]})
    reservation = incident.reservation
    total = reservation.lot_nodes or reservation.bid.nodes or reservation.request.nodes
    if total and continuing_nodes >= total:
        raise ValidationError(
            {"continuing_nodes": [f"Fewer than the reservation's {total} nodes, please."]}
        )
    before = {
        "fewer_nodes_at": incident.fewer_nodes_at,
        "continuing_nodes": incident.continuing_nodes,
    }
    incident.fewer_nodes_at, incident.continuing_nodes = at, continuing_nodes
    incident.save(update_fields=["fewer_nodes_at", "continuing_nodes"])
    _record(
        incident,
        "incident.fewer_nodes",
        user,
        before=before,
        after={"fewer_nodes_at": at, "continuing_nodes": continuing_nodes},
    )
    return incident
