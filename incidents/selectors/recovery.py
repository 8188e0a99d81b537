"""A repaired node's recovery checklist: the contract's shape, the burn-in's hosts and copy, the
reservation's node list (the one list incidents, billing and recovery share) and recurrences."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from acceptance.models import Evidence, EvidenceState, Reservation
from acceptance.models.burnin import WHOLE_ALLOCATION
from engine import failures
from incidents.models import (
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
)


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
    """(nodes, GPUs per node, GPU model) of the awarded bid's revision, else the request's; a
    lot's reservation holds the nodes it won on that lot, of the lot's size."""
    revision, request = reservation.bid_revision, reservation.request
    nodes = reservation.nodes or request.nodes
    per_node = revision.gpus_per_node or request.gpus_per_node
    if reservation.lot is not None:
        per_node = reservation.lot.gpus_per_node
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
