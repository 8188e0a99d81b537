"""Reads: the seven ticket contents an incident hands to the other party (ids, window, rank map,
NCCL output, step times, events, change log), as one list of sections that the copyable text,
the `ticket.txt` download and the PDF (annexes.ticket) all print. Every value comes from the
record; what is missing says so ("not uploaded")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from audit.models import AuditEntry
from engine import failures
from incidents.models import (
    ChangeLogEntry,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    RepairEstimate,
)
from incidents.selectors import degraded_rank_map, ranks_by_node, severity_history, utc_label

NCCL_LINES = 8  # the first failure and the chain after it
SECTION_TITLES = (
    ("ids", "Identifiers"),
    ("window", "Time window (UTC)"),
    ("rank_map", "Rank-to-node map"),
    ("nccl", "NCCL output"),
    ("step_times", "Step times"),
    ("events", "Events"),
    ("changes", "Change log"),
)


@dataclass
class Section:
    key: str
    title: str
    lines: list[str] = field(default_factory=list)

    @property
    def body(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Ticket:
    title: str
    sections: list[Section]

    def text(self) -> str:
        out = [self.title, "=" * len(self.title), ""]
        for number, section in enumerate(self.sections, start=1):
            heading = f"{number}. {section.title}"
            out += [heading, "-" * len(heading), *section.lines, ""]
        return "\n".join(out)


def _at(value: datetime | None) -> str:
    return f"{value:%Y-%m-%d %H:%M:%S} UTC" if value is not None else "not recorded"


def _name(user: Any) -> str:
    return user.get_username() if user is not None else "?"


def _ids(incident: Incident) -> list[str]:
    reservation = incident.reservation
    request, bid = reservation.request, reservation.bid
    run = incident.failed_run
    lines = [
        f"Incident: #{incident.pk} ({incident.get_severity_display()})",
        f"Reservation: #{reservation.pk}",
        f"Request: #{request.pk} “{request.title}” (buyer {request.buyer.name})",
        f"Bid: #{bid.pk} (provider {bid.provider.name})",
    ]
    if run is not None:
        size = f", world size {run.world_size}" if run.world_size else ""
        lines.append(f"Failed run / job: #{run.pk} “{run.label}”{size}")
    else:
        lines.append("Failed run / job: none uploaded")
    return lines


def _window(incident: Incident) -> list[str]:
    window = incident.window or {}
    lines = []
    step, at = window.get("last_healthy_step"), utc_label(window.get("last_healthy_at"))
    if step is not None or at:
        where = f"step {step}" if step is not None else "step unknown"
        lines.append(f"Last healthy step: {where} at {at or 'unknown time'}")
    else:
        lines.append("Last healthy step: unknown")
    step, at = window.get("first_bad_step"), utc_label(window.get("first_bad_at"))
    if step is not None or at:
        where = f"step {step}" if step is not None else "step unknown"
        lines.append(f"First bad step: {where} at {at or 'unknown time'}")
    else:
        lines.append("First bad step: unknown")
    lines += [
        f"Failure: {_at(incident.failed_at)}",
        f"Opened: {_at(incident.opened_at)}",
        f"Restored: {_at(incident.restored_at)}",
    ]
    if incident.closed_at:
        lines.append(f"Closed: {_at(incident.closed_at)}")
    return lines


def _step_rank_map(incident: Incident) -> list[str]:
    """An S2's rank map: the step-time file's own rank and node columns, or the rank map
    uploaded beside it."""
    origin, lines = degraded_rank_map(incident.degraded or {})
    return [f"From {origin}:", *lines] if lines else []


def _rank_map(incident: Incident) -> list[str]:
    run = incident.failed_run
    if run is None:
        return _step_rank_map(incident) or ["not uploaded (no failed run on this incident)"]
    upload = next((f for f in run.files.all() if f.is_rank_map), None)
    if upload is not None:
        try:
            parsed = failures.parse_rank_map(upload.read_bytes(), name=upload.original_name)
        except (failures.FailureInputError, OSError) as exc:
            return [f"{upload.original_name} (uploaded) could not be read: {exc}"]
        pairs = {r: i.node for r, i in parsed.ranks.items() if i.node}
        return [f"From {upload.original_name} ({len(pairs)} ranks):", *ranks_by_node(pairs)]
    seen = {
        int(e["rank"]): str(e["node"])
        for e in (run.analysis or {}).get("timeline") or []
        if isinstance(e.get("rank"), int) and e.get("node")
    }
    if seen:
        return [
            f"Rank-map file not uploaded; ranks seen in the logs ({len(seen)}):",
            *ranks_by_node(seen),
        ]
    return ["not uploaded"]


def _event_line(event: dict[str, Any]) -> str:
    where = f"rank {event.get('rank')}" if event.get("rank") is not None else "rank ?"
    node = f" on {event['node']}" if event.get("node") else ""
    when = utc_label(event.get("time")) or "no time"
    return f"{when} {where}{node} [{event.get('kind')}]: {event.get('message') or ''}".rstrip()


def _latest(evidence: list[IncidentEvidence], kind: str) -> IncidentEvidence | None:
    rows = [e for e in evidence if e.kind == kind and e.ok]
    return rows[-1] if rows else None


def _nccl(incident: Incident, evidence: list[IncidentEvidence]) -> list[str]:
    lines: list[str] = []
    analysis = (incident.failed_run.analysis or {}) if incident.failed_run else {}
    first = analysis.get("first_failure")
    if first:
        lines.append("First failure (failed-run analysis):")
        lines.append(f"  {_event_line(first)}")
        chain = [e for e in analysis.get("chain") or [] if e != first][: NCCL_LINES - 1]
        if chain:
            lines.append("Then:")
            lines += [f"  {_event_line(e)}" for e in chain]
    else:
        lines.append("Failed-run analysis: not uploaded")
    nccl = _latest(evidence, IncidentEvidenceKind.NCCL)
    if nccl is not None and nccl.parsed:
        p = nccl.parsed
        nodes = ", ".join(p.get("nodes") or []) or "nodes not in the file"
        lines.append(
            f"Recovery nccl-tests ({nccl.original_name}): {p.get('collective')}, "
            f"{p.get('ranks')} ranks on {nodes}, {p.get('library') or 'NCCL'} "
            f"{p.get('nccl_version') or '?'}, "
            f"average bus bandwidth {p.get('avg_busbw')} GB/s"
        )
    else:
        lines.append("Recovery nccl-tests: not uploaded")
    return lines


def _median(row: IncidentEvidence | None) -> str:
    value = (row.parsed or {}).get("run_median") if row else None
    return f"{value:.3f} s" if isinstance(value, int | float) else ""


def _slowest_lines(incident: Incident) -> list[str]:
    found = incident.degraded or {}
    slowest = found.get("slowest") or []
    if not slowest:
        return []
    lines = ["Slowest ranks in the window (median step time):"]
    for s in slowest:
        rank = "rank ?" if s.get("rank") is None else f"rank {s['rank']}"
        node = s.get("node") or "node unknown"
        lines.append(f"  {rank} on {node}: {s.get('seconds')} s")
    return lines


def _step_log(incident: Incident, evidence: list[IncidentEvidence], bad_text: str) -> str:
    """The step-time file on record: an uploaded step log, else the per-rank step times an S2
    was opened from."""
    log = _latest(evidence, IncidentEvidenceKind.STEP_LOG)
    if log is not None:
        return f"Step log: {log.original_name} (first bad step {bad_text})"
    ranks = _latest(evidence, IncidentEvidenceKind.RANK_STEPS)
    if ranks is not None:
        return (
            f"Step log: {ranks.original_name} uploaded, per-rank step times (SHA-256 "
            f"{ranks.sha256[:16]}…; first bad step {bad_text})"
        )
    return "Step log: not uploaded"


def _step_times(incident: Incident, evidence: list[IncidentEvidence]) -> list[str]:
    window = incident.window or {}
    found = incident.degraded or {}
    pct = f"{incident.degraded_pct:g} %" if incident.degraded_pct is not None else "not set"
    lines = [
        f"Degraded (terms): every step {pct} or more above the baseline for "
        f"{incident.degraded_window_minutes} min (each step the median over its ranks)",
        f"Window basis: {window.get('basis') or 'failure time only (no step log)'}",
    ]
    if found.get("baseline_s") is not None:
        lines.append(
            f"Baseline: {found['baseline_s']} s ({found.get('baseline_source') or 'recorded'}), "
            f"limit {found.get('limit_s')} s"
        )
    lines += [f"  {r}" for r in window.get("reasons") or []]
    slowest = window.get("slowest_ranks")
    if slowest:
        lines.append(f"Slowest ranks in the window: {slowest}")
    lines += _slowest_lines(incident)
    bad = window.get("first_bad_step")
    lines.append(_step_log(incident, evidence, "none" if bad is None else str(bad)))
    for kind, label in (
        (IncidentEvidenceKind.PRE_STEPS, "Pre-incident median"),
        (IncidentEvidenceKind.SMOKE, "Smoke-run median"),
    ):
        row = _latest(evidence, kind)
        median = _median(row)
        lines.append(
            f"{label}: {median} ({row.original_name})"
            if row and median
            else f"{label}: not uploaded"
        )
    return lines


def _events(
    incident: Incident,
    evidence: list[IncidentEvidence],
    changes: list[ChangeLogEntry],
    estimates: list[RepairEstimate],
) -> list[str]:
    # The severity as it happened: opened as, then each agreed, rejected or waiting change.
    rows: list[tuple[datetime, str]] = [
        (line["at"], line["text"]) for line in severity_history(incident)
    ]
    if incident.responded_at:
        rows.append((incident.responded_at, f"responded by {_name(incident.responded_by)}"))
    if incident.restored_at:
        rows.append((incident.restored_at, f"restored by {_name(incident.restored_by)}"))
    if incident.closed_at:
        rows.append((incident.closed_at, f"closed by {_name(incident.closed_by)}"))
    for entry in AuditEntry.objects.filter(
        obj_key=f"incident:{incident.pk}", action="incident.severity"
    ).order_by("seq"):
        # Changes made before a change needed the other party's agreement.
        to = (entry.after or {}).get("severity")
        rows.append((entry.at, f"severity → {to} by {entry.actor_name}: {entry.reason}"))
    for b in incident.breaches.order_by("due_at", "pk"):
        rows.append((b.due_at, f"{b.severity} {b.clock} clock breached ({b.minutes} min)"))
    if incident.acknowledged_at:
        rows.append(
            (incident.acknowledged_at, f"acknowledged by {_name(incident.acknowledged_by)}")
        )
    if incident.disputed_at:
        who = _name(incident.disputed_by)
        rows.append((incident.disputed_at, f"disputed by {who}: {incident.dispute_reason}"))
    for e in evidence:
        state = "read" if e.ok else f"unreadable: {e.error}"
        rows.append(
            (
                e.uploaded_at,
                f"evidence {e.original_name} ({e.get_kind_display()}, {state}) "
                f"by {_name(e.uploaded_by)}",
            )
        )
    for s in incident.signoffs.select_related("by"):
        rows.append((s.at, f"sign-off {s.key} by {_name(s.by)}: {s.note}"))
    for d in incident.disputes.select_related("by"):
        rows.append((d.at, f"dispute of {d.key} by the {d.party} ({_name(d.by)}): {d.reason}"))
    for est in estimates:
        rows.append(
            (
                est.posted_at,
                f"repair estimate r{est.revision} by {_name(est.posted_by)}: "
                f"{est.get_cause_class_display()}, ETA {_at(est.eta)}, {est.confidence} confidence",
            )
        )
    for c in changes:
        if c.decided_at:
            rows.append((c.decided_at, f"change #{c.pk} {c.status} by the {c.decided_party}"))
    rows.sort(key=lambda r: r[0])
    return [f"{_at(at)}  {text}" for at, text in rows]


def change_lines(entry: ChangeLogEntry) -> list[str]:
    lines = [
        f"#{entry.pk} {entry.get_kind_display()} [{entry.status}]: {entry.what}",
        f"  proposed by the {entry.proposed_party} ({_name(entry.proposed_by)}) at "
        f"{_at(entry.proposed_at)}",
    ]
    if entry.decided_at:
        verb = "declined" if entry.status == "declined" else "approved"
        note = f": {entry.decision_note}" if entry.decision_note else ""
        lines.append(
            f"  {verb} by the {entry.decided_party} ({_name(entry.decided_by)}) at "
            f"{_at(entry.decided_at)}{note}"
        )
    else:
        lines.append(f"  awaiting the {entry.other_party}'s approval")
    if entry.applied_at:
        lines.append(f"  applied by {_name(entry.applied_by)} at {_at(entry.applied_at)}")
    checks = entry.checks_rerun or "none named"
    files = ", ".join(e.original_name for e in entry.evidence.all())
    lines.append(f"  checks rerun: {checks}" + (f" (evidence: {files})" if files else ""))
    return lines


def ticket_for(incident: Incident) -> Ticket:
    evidence = list(incident.evidence.select_related("uploaded_by").order_by("pk"))
    changes = list(
        incident.changes.select_related("proposed_by", "decided_by", "applied_by")
        .prefetch_related("evidence")
        .order_by("proposed_at", "pk")
    )
    estimates = list(incident.estimates.select_related("posted_by").order_by("revision"))
    content = {
        "ids": _ids(incident),
        "window": _window(incident),
        "rank_map": _rank_map(incident),
        "nccl": _nccl(incident, evidence),
        "step_times": _step_times(incident, evidence),
        "events": _events(incident, evidence, changes, estimates),
        "changes": [line for c in changes for line in change_lines(c)]
        or ["No configuration change or workaround recorded."],
    }
    title = (
        f"Incident #{incident.pk} ({incident.severity}) · "
        f"{incident.reservation.request.title} · ticket"
    )
    return Ticket(
        title=title,
        sections=[Section(key, name, content[key]) for key, name in SECTION_TITLES],
    )
