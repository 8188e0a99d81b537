"""The outcome report of a reservation, for the term to date or one month: the envelope promised
against what was observed, the four capacities, the start receipts, the reclaims, the cost per
accepted result and a diagnostic packet for every missed promise.

Worked from the stored parses as of the period's end (or now, while it runs), so a closed
period renders to the same snapshot, and the same version, until its sources change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from acceptance.models import Reservation, ReservationStatus
from annexes.document.outcome_inference import inference_part
from annexes.document.statement import reservation_of
from bids.choices import ReclaimEffect
from bids.models import CapacityRequest
from delivery.terms import term_bounds
from engine.delivery.availability import month_bounds
from engine.formatting import fixed
from engine.observed.outcome import Observed
from observed.models import ObservedState
from observed.selectors import ObservedReport, Packet, observed_report, uploads_for

SCHEMA = "clusterbid.outcome/1"
KIND_OUTCOME = "outcome"


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _two(value: Any) -> str:
    return "—" if value is None else fixed(value)


def outcome_periods(reservation: Reservation | None) -> list[str]:
    """ "" (the term to date) and the term's months begun so far."""
    term = term_bounds(reservation) if reservation is not None else None
    if term is None or reservation is None or reservation.status != ReservationStatus.ACCEPTED:
        return []
    start, end = term
    months = [f"{a:%Y-%m}" for a, _b in month_bounds(start, max(start, min(end, timezone.now())))]
    return ["", *months]


def outcome_snapshot(
    *, capacity_request: CapacityRequest, period: str, reservation: Reservation | None = None
) -> dict[str, Any]:
    """For `reservation`, or the request's whole-request reservation (a single award)."""
    reservation = reservation_of(capacity_request=capacity_request, reservation=reservation)
    periods = outcome_periods(reservation)
    if reservation is None or not periods:
        raise ValueError("An outcome report covers accepted time: the term has not started.")
    if period not in periods:
        known = ", ".join(p for p in periods if p) or "none yet"
        raise ValueError(f"The term has no month {period!r} to date; its months: {known}.")
    term = term_bounds(reservation)
    assert term is not None
    end = term[1] if not period else {
        f"{a:%Y-%m}": b for a, b in month_bounds(*term)
    }[period]  # fmt: skip
    as_of = min(end, timezone.now())
    report = observed_report(reservation=reservation, period=period, now=as_of)
    found = report.observed
    assert found is not None
    # The term to date holds every file read; a month, the files uploaded in it.
    month = (report.start, report.end) if period else (None, None)
    served = inference_part(reservation, *month)
    return {
        "schema": SCHEMA,
        "kind": KIND_OUTCOME,
        "period": period,
        "request": {
            "id": capacity_request.pk,
            "title": capacity_request.title,
            "buyer": capacity_request.buyer.name,
        },
        "provider": reservation.bid.provider.name,
        "reservation": reservation.pk,
        "window": {"start": _iso(report.start), "end": _iso(report.end)},
        "as_of": _iso(as_of),
        "envelope": _envelope(report, found),
        "capacities": [
            {
                "day": str(d.day),
                "contracted": _two(d.contracted),
                "allocatable": _two(d.allocatable),
                "healthy": _two(d.healthy),
                "in_use": _two(d.in_use),
            }
            for d in found.days
        ],
        "receipts": [
            {
                "job": r.job,
                "gpus": r.gpus,
                "submitted": _iso(r.submitted),
                "admitted": _iso(r.admitted),
                "started": _iso(r.started),
                "to_running": _two(r.to_running_minutes),
                "within": {True: "within", False: "over", None: "—"}[r.within_p95],
            }
            for r in found.receipts.rows
        ],
        "reclaims": [
            {
                "job": c.reclaim.job,
                "at": _iso(c.reclaim.at),
                "reason": c.reclaim.reason[:200],
                "back": _two(c.back_minutes),
                "misses": list(c.misses),
            }
            for c in found.reclaims
        ],
        "cost": _cost(report),
        "misses": [_packet(p) for p in report.packets],
        "files": [
            {
                "file": u.original_name,
                "kind": u.get_kind_display(),
                "party": u.party,
                "sha256": u.sha256,
            }
            for u in uploads_for(reservation=reservation).order_by("uploaded_at", "pk")
            if u.state == ObservedState.DONE
        ],
        # Only where files were read: the reports of other reservations keep their snapshots.
        **({"inference": served} if served else {}),
    }


def _envelope(report: ObservedReport, found: Observed) -> list[list[str]]:
    e, receipts = report.envelope, found.receipts
    over = len(receipts.over_p95)
    outside = sum(1 for c in found.reclaims if c.misses)
    requeued = sum(1 for c in found.reclaims if c.reclaim.requeued)
    health = [m for m in found.misses if m.promise == "Health-check cadence"]

    def minutes(value: Any) -> str:
        return "—" if value is None else f"{value} min"

    return [
        ["Time to running, p50", minutes(e.start_p50_minutes), minutes(receipts.observed_p50)],
        ["Time to running, p95", minutes(e.start_p95_minutes),
         f"{minutes(receipts.observed_p95)} ({over} of {len(receipts.rows)} jobs over)"],
        ["Running jobs reclaimed", {True: "yes", False: "never", None: "—"}[e.preemptible],
         f"{len(found.reclaims)} reclaims, {outside} outside the terms"],
        ["Reclaim notice", minutes(e.reclaim_notice_minutes), "not in the scheduler's records"],
        ["What a reclaim does", ReclaimEffect(e.reclaim_effect).label if e.reclaim_effect
         else "—", f"{requeued} of {len(found.reclaims)} requeued"],
        ["Health checks", minutes(e.health_check_minutes),
         f"{len(health)} failing nodes kept in the pool longer"],
    ]  # fmt: skip


def _cost(report: ObservedReport) -> dict[str, Any] | None:
    c = report.cost
    if c is None:
        return None
    return {
        "label": c.label, "accepted": c.count.accepted, "replayed": c.count.replayed,
        "rejected": c.count.rejected, "paid": report.paid_working, "working": c.working,
        "predicted": c.predicted_working, "reasons": list(c.reasons),
    }  # fmt: skip


def _packet(p: Packet) -> dict[str, Any]:
    m = p.miss
    return {
        "promise": m.promise, "promised": m.promised, "observed": m.observed,
        "start": _iso(m.start), "end": _iso(m.end), "jobs": list(m.jobs), "nodes": list(m.nodes),
        "records": [
            {"at": _iso(r.at), "subject": r.subject, "what": r.what, "detail": r.detail[:200],
             "where": f"{r.source}:{r.line}"}
            for r in m.records
        ],
        "node_states": [
            {"at": _iso(at), "node": n.node, "allocatable": n.allocatable, "healthy": n.healthy,
             "why": n.why}
            for at, n in m.node_states
        ],
        "incidents": [
            {"id": i.pk, "severity": i.severity, "summary": (i.summary or "")[:200]}
            for i in p.incidents
        ],
        "bills": p.bills,
        "changes": p.changes,
    }  # fmt: skip
