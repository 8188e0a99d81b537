"""Reads for failed runs and incidents. Tenancy as for the reservation: the request's buyer and
the awarded provider; everyone else gets a 404, downloads included."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone

from acceptance.models import Acknowledgement, Evidence, EvidenceState, Reservation
from acceptance.models.burnin import WHOLE_ALLOCATION
from acceptance.selectors.fixtures import FAILURE_RECORD_LABELS
from contracts.defaults import STANDARD
from contracts.models import HandoffTerms, HandoffTermsRevision
from engine import failures
from engine.failures import incident as failures_incident
from engine.failures.record import record_gaps
from engine.formatting import countdown
from incidents.models import (
    BaselineProposal,
    BaselineProposalStatus,
    ClockBreach,
    FailedRun,
    FailedRunFile,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    SeverityChange,
    SeverityChangeStatus,
)

TIMELINE_PAGE = 50


def _party(prefix: str, org_ids: Iterable[int]) -> Q:
    ids = list(org_ids)
    return Q(**{f"{prefix}request__buyer_id__in": ids}) | Q(
        **{f"{prefix}bid__provider_id__in": ids}
    )


def failed_run_list(*, org_ids: Iterable[int]) -> QuerySet[FailedRun]:
    """Failed-run bundles on the reservations the organisation is a party to."""
    ids = list(org_ids)
    return (
        FailedRun.objects.filter(
            Q(reservation__request__buyer_id__in=ids) | Q(reservation__bid__provider_id__in=ids)
        )
        .select_related("incident", "reservation__fixture_version")
        .prefetch_related("files")
        .order_by("-uploaded_at", "-pk")
    )


def incident_list(*, reservation: Reservation) -> QuerySet[Incident]:
    """A reservation's incidents, newest first, with the people the rows name."""
    return (
        Incident.objects.filter(reservation=reservation)
        .select_related("opened_by")
        .order_by("-opened_at", "-pk")
    )


def incident_evidence_list(*, incident: Incident) -> QuerySet[IncidentEvidence]:
    return incident.evidence.select_related("uploaded_by").order_by("uploaded_at", "pk")


def failed_run_get(*, org_ids: Iterable[int], pk: int) -> FailedRun:
    try:
        return (
            FailedRun.objects.select_related(
                "reservation__request__buyer", "reservation__bid__provider", "uploaded_by"
            )
            .filter(_party("reservation__", org_ids))
            .get(pk=pk)
        )
    except FailedRun.DoesNotExist:
        raise Http404 from None


def failed_run_file_get(*, org_ids: Iterable[int], pk: int) -> FailedRunFile:
    try:
        return FailedRunFile.objects.filter(_party("failed_run__reservation__", org_ids)).get(pk=pk)
    except FailedRunFile.DoesNotExist:
        raise Http404 from None


def incident_get(*, org_ids: Iterable[int], pk: int) -> Incident:
    try:
        return (
            Incident.objects.select_related(
                "reservation__request__buyer",
                "reservation__bid__provider",
                "reservation__baseline",
                "failed_run",
                "terms_revision",
                "opened_by",
                "responded_by",
                "restored_by",
                "closed_by",
            )
            .filter(_party("reservation__", org_ids))
            .get(pk=pk)
        )
    except Incident.DoesNotExist:
        raise Http404 from None


def incident_evidence_get(*, org_ids: Iterable[int], pk: int) -> IncidentEvidence:
    try:
        return IncidentEvidence.objects.filter(_party("incident__reservation__", org_ids)).get(
            pk=pk
        )
    except IncidentEvidence.DoesNotExist:
        raise Http404 from None


def terms_for(
    reservation: Reservation,
) -> tuple[HandoffTermsRevision | None, dict[str, Any], str]:
    """The terms an incident runs on: the revision the provider acknowledged for the awarded
    bid, else the request's latest revision, else its current terms, else the standard."""
    ack = (
        Acknowledgement.objects.filter(bid_id=reservation.bid_id, terms_revision__isnull=False)
        .select_related("terms_revision")
        .order_by("-at", "-pk")
        .first()
    )
    if ack is not None and ack.terms_revision is not None:
        rev = ack.terms_revision
        return rev, dict(rev.snapshot), f"terms revision {rev.number} (acknowledged by provider)"
    terms = HandoffTerms.objects.filter(request_id=reservation.request_id).first()
    if terms is not None:
        latest = terms.revisions.order_by("-number").first()
        if latest is not None:
            return (
                latest,
                dict(latest.snapshot),
                f"terms revision {latest.number} (request's latest)",
            )
        return None, terms.snapshot(), f"current terms v{terms.version} (no revision yet)"
    return None, dict(STANDARD), "standard terms (the request has none)"


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


def _latest(rows: list[IncidentEvidence], kind: str) -> IncidentEvidence | None:
    ok = [e for e in rows if e.kind == kind and e.ok]
    return ok[-1] if ok else None


def _median(row: IncidentEvidence | None) -> float | None:
    value = (row.parsed or {}).get("run_median") if row else None
    return float(value) if isinstance(value, int | float) else None


def repaired_nodes(incident: Incident) -> list[str]:
    """The nodes this incident touches: its own `nodes` when set (opened from a signal, or
    filled on attaching an analysis), else its analysis's initiating node; [] when unknown."""
    if incident.nodes:
        return [str(n) for n in incident.nodes]
    run = incident.failed_run
    node = (run.analysis or {}).get("initiating_node") if run is not None else None
    return [node] if isinstance(node, str) and node else []


def node_in_name(name: str, nodes: Iterable[str]) -> str:
    """The node a file name names as a whole token ('dcgmi-node-17.txt' → 'node-17', never
    'node-1'); '' when none."""
    for node in nodes:
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(node)}(?![A-Za-z0-9])", name, re.I):
            return node
    return ""


def checklist_states(
    incident: Incident,
    evidence: list[IncidentEvidence] | None = None,
    *,
    now: datetime | None = None,
) -> list[failures.ItemState]:
    rows = evidence if evidence is not None else list(incident.evidence.order_by("pk"))
    items = [
        failures.ChecklistItem(i["key"], i["text"], i.get("evidence"), i.get("threshold"))
        for i in incident.checklist
    ]
    baseline = getattr(incident.reservation, "baseline", None)
    snapshot = baseline.snapshot if baseline is not None else None
    nccl = _latest(rows, IncidentEvidenceKind.NCCL)
    nodes = repaired_nodes(incident)
    diag = _latest(rows, IncidentEvidenceKind.DIAG)
    # Named nodes: every passing upload counts, each for the node it ran on (the last one wins).
    diags = [
        {**e.parsed, "sha256": e.sha256}
        for e in rows
        if e.kind == IncidentEvidenceKind.DIAG and e.ok and e.parsed
    ]
    loss = _latest(rows, IncidentEvidenceKind.TRAINING_LOG)
    reference = _median(_latest(rows, IncidentEvidenceKind.PRE_STEPS))
    if reference is None and snapshot:
        value = (snapshot.get("step_times") or {}).get("run_median_s")
        reference = float(value) if isinstance(value, int | float) else None
    signoffs = list(incident.signoffs.select_related("by"))
    signed = {
        s.key: f"{s.note} — {s.by.get_username()}, {s.at:%Y-%m-%d %H:%M} UTC" for s in signoffs
    }
    return failures.evaluate(
        items,
        evidence={
            "nccl-tests": [nccl.parsed] if nccl and nccl.parsed else [],
            "dcgmi-diag": diags if nodes else ([diag.parsed] if diag and diag.parsed else []),
            "training-log": [loss.parsed] if loss and loss.parsed else [],
        },
        signed=signed,
        baseline=snapshot,
        reference_median=reference,
        smoke_median=_median(_latest(rows, IncidentEvidenceKind.SMOKE)),
        repaired_nodes=nodes,
        context=recovery_context(incident, nccl=nccl, signed=signed, now=now),
    )


def recovery_context(
    incident: Incident,
    *,
    nccl: IncidentEvidence | None,
    signed: dict[str, str],
    now: datetime | None = None,
) -> failures.Context:
    """What the recovery checks compare against: the contract's node shape, the burn-in's node
    set, reuse of burn-in bytes, the checkpoint step, the loss tolerance, recurrences."""
    reservation = incident.reservation
    nodes, per_node, model = contract_shape(reservation)
    terms = incident.terms_revision.snapshot if incident.terms_revision is not None else {}
    step = (incident.checkpoint or {}).get("step")
    disputed = {
        d.key: d.reason for d in incident.disputes.order_by("at", "pk") if d.key not in signed
    }
    return failures.Context(
        nccl=failures.NcclShape(
            ranks=nodes * per_node if nodes and per_node else None,
            nodes=nodes,
            gpus_per_node=per_node,
            hosts=burnin_hosts(reservation),
            reservation_nodes=tuple(reservation_nodes(reservation)) or None,
            reused=burnin_copy(reservation, nccl.sha256) if nccl is not None else None,
        ),
        node=failures.NodeShape(gpus_per_node=per_node, gpu_model=model),
        checkpoint_step=step if isinstance(step, int) else None,
        loss_tolerance_pct=failures.loss_tolerance(terms),
        now=now or timezone.now(),
        restored_at=incident.restored_at,
        recurrences=tuple(recurrences(incident)),
        disputed=disputed,
    )


def contract_shape(reservation: Reservation) -> tuple[int | None, int | None, str | None]:
    """(nodes, GPUs per node, GPU model) of the awarded bid's revision, else the request's."""
    revision, request = reservation.bid_revision, reservation.request
    nodes = revision.nodes or request.nodes
    per_node = revision.gpus_per_node or request.gpus_per_node
    model = revision.gpu_model or request.gpu_model
    return nodes, per_node, model or None


def _parsed_evidence() -> Q:
    return Q(withdrawn_at__isnull=True, state=EvidenceState.PARSED)


def burnin_hosts(reservation: Reservation) -> tuple[str, ...] | None:
    """The node set the hand-over run's nccl-tests ran on: frozen in the baseline where it was
    kept, else read from the baseline's burn-in evidence; None when neither says."""
    baseline = getattr(reservation, "baseline", None)
    if baseline is None:
        return None
    rows = [r for r in (baseline.snapshot or {}).get("nccl") or [] if r.get("hosts")]
    if rows:
        return tuple(str(h) for h in rows[0]["hosts"])
    ids = [r.get("evidence_id") for r in (baseline.snapshot or {}).get("nccl") or []]
    found = Evidence.objects.filter(_parsed_evidence(), run_id=baseline.run_id, kind="nccl-tests")
    wanted = [e for e in found.order_by("pk") if e.pk in ids] or list(found.order_by("pk"))
    for e in wanted:
        hosts = (e.parsed or {}).get("nodes") or []
        if hosts:
            return tuple(str(h) for h in hosts)
    return None


def burnin_copy(reservation: Reservation, sha256: str) -> str | None:
    """'this is the burn-in's <file>, uploaded <date>; …' when the bytes are burn-in evidence."""
    if not sha256:
        return None
    twin = (
        Evidence.objects.filter(run__reservation=reservation, sha256=sha256)
        .order_by("uploaded_at", "pk")
        .first()
    )
    if twin is not None:
        return (
            f"this is the burn-in's {twin.original_name}, uploaded "
            f"{twin.uploaded_at:%Y-%m-%d %H:%M} UTC; a recovery run must be new"
        )
    baseline = getattr(reservation, "baseline", None)
    for row in (baseline.snapshot or {}).get("evidence") or [] if baseline is not None else []:
        if row.get("sha256") == sha256:
            return (
                f"this is the burn-in's {row.get('file')} (kept in the hand-over baseline); "
                "a recovery run must be new"
            )
    return None


def recurrences(incident: Incident) -> list[failures.Recurrence]:
    """Other incidents of the reservation opened in the no-recurrence period after the restore
    that touch the same nodes. Where either incident names no node, the nodes cannot be told
    apart and the other incident counts."""
    if incident.restored_at is None:
        return []
    hours = next(
        (i.get("threshold") for i in incident.checklist if i["key"] == "no_recurrence_hours"), 24
    )
    end = incident.restored_at + timedelta(hours=float(hours or 24))
    mine = set(repaired_nodes(incident))
    others = (
        Incident.objects.filter(
            reservation_id=incident.reservation_id,
            opened_at__gte=incident.restored_at,
            opened_at__lte=end,
        )
        .exclude(pk=incident.pk)
        .select_related("failed_run")
        .order_by("opened_at", "pk")
    )
    out = []
    for other in others:
        theirs = repaired_nodes(other)
        if mine and theirs and not mine & set(theirs):
            continue
        out.append(failures.Recurrence(other.pk, other.opened_at, tuple(theirs)))
    return out


def live_breaches(incident: Incident, *, now: datetime) -> list[dict[str, Any]]:
    """The clocks of the severity in force that have run out at `now` (response, restore), with
    their deadlines; reads only the incident's own columns."""
    due = failures.incident_clocks(
        severity=incident.severity, detected_at=incident.opened_at, clocks=incident.clocks
    )
    status = failures.clock_status(
        due, now=now, responded_at=incident.responded_at, restored_at=incident.restored_at
    )
    out = []
    for clock, breached, when, key in (
        ("response", status.response_breached, due.response_due, "response_minutes"),
        ("restore", status.restore_breached, due.restore_due, "restore_minutes"),
    ):
        if breached:
            out.append({"clock": clock, "severity": incident.severity, "due_at": when,
                        "minutes": incident.minutes(key)})  # fmt: skip
    return out


def clock_breaches(
    incident: Incident, *, now: datetime, recorded: Iterable[ClockBreach] | None = None
) -> int:
    """How many of the incident's clocks are breached: every recorded breach (a fact: a later
    severity change or edit never takes it away), plus a clock of the severity in force that
    has run out since the last sweep. A clock counts once. `recorded` lets a list of incidents
    pass its prefetched rows; without it the rows are read."""
    if recorded is not None:
        rows = list(recorded)
    else:
        rows = list(incident.breaches.all()) if incident.pk is not None else []
    kinds = {b.clock for b in rows}
    kinds.update(b["clock"] for b in live_breaches(incident, now=now))
    return len(kinds)


def breaches_list(*, incident: Incident) -> list[ClockBreach]:
    return list(ClockBreach.objects.filter(incident=incident).order_by("due_at", "pk"))


def severity_changes(*, incident: Incident) -> list[SeverityChange]:
    return list(
        SeverityChange.objects.filter(incident=incident)
        .select_related("proposed_by", "decided_by")
        .order_by("proposed_at", "pk")
    )


def pending_severity_change(*, incident: Incident) -> SeverityChange | None:
    return next(
        (
            c
            for c in severity_changes(incident=incident)
            if c.status == SeverityChangeStatus.PENDING
        ),
        None,
    )


def _utc_at(value: datetime) -> str:
    return f"{value.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _who(user: Any) -> str:
    return user.get_username() if user is not None else "a former member"


def opened_severity(incident: Incident, changes: list[SeverityChange] | None = None) -> str:
    """The severity the incident was opened as: the first accepted change's starting point,
    else the severity it has now."""
    rows = changes if changes is not None else severity_changes(incident=incident)
    accepted = [c for c in rows if c.status == SeverityChangeStatus.ACCEPTED]
    return accepted[0].from_severity if accepted else incident.severity


def severity_history(
    incident: Incident, changes: list[SeverityChange] | None = None
) -> list[dict[str, Any]]:
    """The severity's story as it happened, one line per step: "opened as S1 by alice at …",
    "then changed to S3 by nora on bob's agreement at …", proposals rejected or waiting."""
    rows = changes if changes is not None else severity_changes(incident=incident)
    lines = [{
        "at": incident.opened_at, "kind": "opened",
        "text": f"opened as {opened_severity(incident, rows)} by {_who(incident.opened_by)} at "
                f"{_utc_at(incident.opened_at)}",
    }]  # fmt: skip
    for c in rows:
        if c.status == SeverityChangeStatus.ACCEPTED and c.decided_at is not None:
            text = (
                f"then changed to {c.to_severity} by {_who(c.proposed_by)} on "
                f"{_who(c.decided_by)}'s agreement at {_utc_at(c.decided_at)} ({c.reason})"
            )
            lines.append({"at": c.decided_at, "kind": "accepted", "text": text})
        elif c.status == SeverityChangeStatus.REJECTED and c.decided_at is not None:
            text = (
                f"{c.to_severity} proposed by {_who(c.proposed_by)} at "
                f"{_utc_at(c.proposed_at)} ({c.reason}); rejected by {_who(c.decided_by)} at "
                f"{_utc_at(c.decided_at)}: {c.decision_reason}"
            )
            lines.append({"at": c.decided_at, "kind": "rejected", "text": text})
        else:
            text = (
                f"{c.to_severity} proposed by {_who(c.proposed_by)} (the {c.proposed_party}) at "
                f"{_utc_at(c.proposed_at)} ({c.reason}); awaiting the {c.other_party}, the "
                f"{c.from_severity} clocks run meanwhile"
            )
            lines.append({"at": c.proposed_at, "kind": "pending", "text": text})
    return lines


def incident_standing(incident: Incident, *, now: datetime) -> str:
    """Whether one party's incident is a fact both parties stand by: "acknowledged" (by the
    other party), "disputed", "unanswered" (the response clock ran out without a dispute: it
    stands), or "awaiting" (not yet). Incidents opened before parties were recorded stand."""
    if not incident.opened_by_party or incident.acknowledged_at is not None:
        return "acknowledged"
    if incident.disputed_at is not None:
        return "disputed"
    if now >= incident.response_due:  # type: ignore[operator]
        return "unanswered"
    return "awaiting"


def counts(standing: str) -> bool:
    """Whether an incident of this standing moves availability and credits."""
    return standing in ("acknowledged", "unanswered")


def _split_nodes(label: str) -> list[str]:
    """An evidence node label: "" or the whole allocation is no node; "a+b" is two."""
    if not label or label.strip().lower() == WHOLE_ALLOCATION:
        return []
    return [n.strip() for n in label.split("+") if n.strip()]


def reservation_nodes(reservation: Reservation) -> list[str]:
    """The reservation's node names as its burn-in knew them, first seen first: the hosts the
    hand-over run's nccl-tests ran on, the node labels frozen in its baseline, then the nodes
    its evidence names ("a+b" is two; withdrawn evidence names none). [] when nothing names a
    node: the node list is then unknown. Incidents, bills and recovery evidence are checked
    against this list, never added to it."""
    found: list[str] = list(burnin_hosts(reservation) or ())
    baseline = getattr(reservation, "baseline", None)
    if baseline is not None:
        for entry in (baseline.snapshot or {}).get("nccl") or []:
            found.extend(_split_nodes(str(entry.get("node") or "")))
    rows = Evidence.objects.filter(run__reservation=reservation, withdrawn_at__isnull=True)
    for label in rows.exclude(node="").order_by("pk").values_list("node", flat=True):
        found.extend(_split_nodes(label))
    return list(dict.fromkeys(n.strip() for n in found if n.strip()))


def clock_rows(incident: Incident, *, now: datetime) -> list[dict[str, Any]]:
    due = failures.incident_clocks(
        severity=incident.severity, detected_at=incident.opened_at, clocks=incident.clocks
    )
    status = failures.clock_status(
        due, now=now, responded_at=incident.responded_at, restored_at=incident.restored_at
    )
    return [
        {
            "key": "response",
            "what": "responded",
            "label": "First response",
            "done_label": "Responded at",
            "minutes": incident.minutes("response_minutes"),
            "due": due.response_due,
            "left": status.response_left,
            "left_text": countdown(status.response_left.total_seconds()),
            "breached": status.response_breached,
            "done_at": incident.responded_at,
            "done_by": incident.responded_by,
        },
        {
            "key": "restore",
            "what": "restored",
            "label": "Restore",
            "done_label": "Restored at",
            "minutes": incident.minutes("restore_minutes"),
            "due": due.restore_due,
            "left": status.restore_left,
            "left_text": countdown(status.restore_left.total_seconds()),
            "breached": status.restore_breached,
            "done_at": incident.restored_at,
            "done_by": incident.restored_by,
        },
    ]


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


def failure_record_gaps(run: FailedRun) -> list[dict[str, str]]:
    """What the fixture's failure record asks a failed-run upload to hold and this one lacks
    (`key`, `label`, `detail`), once analysed; a gap never stops the analysis. Uses the run's
    prefetched files and its reservation's fixture version."""
    if not isinstance(run.analysis, dict):
        return []
    version = run.reservation.fixture_version
    record = (version.spec or {}).get("failure_record") if version is not None else None
    if not isinstance(record, dict):
        return []
    has_map = any(f.is_rank_map for f in run.files.all())
    return [
        {"key": gap.key, "label": FAILURE_RECORD_LABELS.get(gap.key, gap.key), "detail": gap.detail}
        for gap in record_gaps(record, run.analysis, rank_map=has_map)
    ]


def analysis_view(
    run: FailedRun, *, page: str | int | None, first: str = "ending"
) -> dict[str, Any]:
    """The stored analysis as the page shows it. `first`: "ever" puts a restarted job's first
    failure at the head, else the failure that ended the job heads."""
    doc = failures.view(run.analysis, first=first) if isinstance(run.analysis, dict) else {}
    groups = doc.get("secondaries") or []
    by_kind: Counter[str] = Counter()
    for g in groups:
        by_kind[g.get("kind")] += len(g.get("ranks") or [])
    timeline: Page[Any] = Paginator(doc.get("timeline") or [], TIMELINE_PAGE).get_page(page)
    rows = [{**e, "time": utc_label(e.get("time"))} for e in timeline.object_list]
    timeline.object_list = rows
    head = doc.get("first_failure")
    attempts = [
        {**a, "time": utc_label((a.get("first_failure") or {}).get("time"))}
        for a in doc.get("attempts") or []
    ]
    return {
        "doc": doc,
        "first": {**head, "time": utc_label(head.get("time"))} if head else None,
        "attempts": attempts,
        "candidates": [
            {**c, "time": utc_label(c.get("time"))} for c in doc.get("candidates") or []
        ],
        "secondary_count": len(doc.get("secondary_ranks") or []),
        "by_kind": sorted(by_kind.items(), key=lambda kv: (-kv[1], str(kv[0]))),
        "timeline": timeline,
    }


def utc_label(value: Any) -> str | None:
    """An ISO instant from the stored JSON as the pages show instants: '2024-05-01 12:00:00',
    with milliseconds only when the log had them ('… 12:00:00.100'); UTC, which the page says."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return value
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    text = f"{when:%Y-%m-%d %H:%M:%S}"
    return f"{text}.{when.microsecond // 1000:03d}" if when.microsecond else text


def window_view(incident: Incident) -> dict[str, Any]:
    """The incident window with its instants formatted like the rest of the page."""
    window = dict(incident.window or {})
    for key in ("last_healthy_at", "first_bad_at"):
        window[key] = utc_label(window.get(key))
    return window


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


def attachable_incidents(run: FailedRun) -> list[Incident]:
    """Open incidents of the run's reservation that have no failed-run analysis yet."""
    return list(
        Incident.objects.filter(
            reservation_id=run.reservation_id, failed_run__isnull=True, closed_at__isnull=True
        ).order_by("-opened_at", "-pk")
    )


def degraded_view(incident: Incident) -> dict[str, Any] | None:
    """What the S2 detector found, with its instants as the pages show them."""
    found = dict(incident.degraded or {})
    if not found:
        return None
    found["rank_map_origin"], found["rank_map_lines"] = degraded_rank_map(found)
    for key in ("window_start", "window_end", "slow_until"):
        found[key] = utc_label(found.get(key))
    return found


def _ranges(ranks: list[int]) -> str:
    """[0, 1, 2, 3, 7] → '0-3, 7'."""
    spans: list[list[int]] = []
    for rank in sorted(set(ranks)):
        if spans and spans[-1][1] + 1 == rank:
            spans[-1][1] = rank
        else:
            spans.append([rank, rank])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def ranks_by_node(pairs: dict[int, str]) -> list[str]:
    """{0: 'a', 1: 'a', 2: 'b'} → ['a: ranks 0-1', 'b: ranks 2'], nodes by their lowest rank."""
    nodes: dict[str, list[int]] = {}
    for rank, node in pairs.items():
        nodes.setdefault(node, []).append(rank)
    ordered = sorted(nodes.items(), key=lambda kv: min(kv[1]))
    return [f"{node}: ranks {_ranges(ranks)}" for node, ranks in ordered]


def degraded_rank_map(found: dict[str, Any]) -> tuple[str, list[str]]:
    """Where an S2's rank map came from (the step-time file's rank and node columns, or the
    rank map uploaded beside it) and its lines, node by node; no lines when it has none."""
    pairs = {
        int(p[0]): str(p[1])
        for p in found.get("rank_map") or []
        if isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and p[1]
    }
    if not pairs:
        return "", []
    if found.get("rank_map_from") == "columns":
        origin = f"{found.get('file') or 'the step-time file'}'s rank and node columns"
    else:
        origin = found.get("rank_map_file") or "the rank map uploaded with the step times"
    return f"{origin} ({len(pairs)} ranks)", ranks_by_node(pairs)
