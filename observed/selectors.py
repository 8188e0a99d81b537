"""What a reservation observed, worked from the stored parses: the four capacities, start
receipts, reclaims, misses with their packets (the scheduler's records and node states from
the engine; the incidents and reconciled bills of the window added here) and the cost per
accepted result, with the paid figure the monthly statement prints."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils import timezone

from acceptance.models import Reservation, ReservationStatus
from billing.models import UsageState, UsageUpload
from delivery.change_selectors import change_list, change_views
from delivery.models import PlannedChange
from delivery.terms import term_bounds
from engine.delivery.availability import month_bounds
from engine.formatting import usd
from engine.observed import serialize
from engine.observed.cost import CostPerResult, Count, cost_per_result, count_results
from engine.observed.envelope import Envelope
from engine.observed.model import Job
from engine.observed.outcome import Miss, Observed, observe
from incidents.models import Incident
from incidents.selectors.recovery import contract_shape
from observed.models import ObservedKind, ObservedState, ObservedUpload, ResultDefinition
from scorecards.realised import delivered, predictions

SCHEDULER_KINDS = (ObservedKind.KUEUE, ObservedKind.SACCT)
NODE_KINDS = (ObservedKind.KUBE_NODES, ObservedKind.SINFO)


def uploads_for(*, reservation: Reservation) -> QuerySet[ObservedUpload]:
    return (
        ObservedUpload.objects.filter(reservation=reservation)
        .select_related("uploaded_by")
        .order_by("-uploaded_at", "-pk")
    )


def upload_get(*, org_ids: Iterable[int], pk: int) -> ObservedUpload:
    """One file, for a member of either party to its reservation; 404 for anyone else."""
    ids = list(org_ids)
    try:
        return (
            ObservedUpload.objects.select_related(
                "reservation__request__buyer", "reservation__bid__provider", "uploaded_by"
            )
            .filter(
                Q(reservation__request__buyer_id__in=ids) | Q(reservation__bid__provider_id__in=ids)
            )
            .get(pk=pk)
        )
    except ObservedUpload.DoesNotExist:
        raise Http404 from None


def envelope_of(reservation: Reservation) -> Envelope:
    r = reservation.bid_revision
    return Envelope(
        start_p50_minutes=r.start_p50_minutes, start_p95_minutes=r.start_p95_minutes,
        idle_capacity_lent=r.idle_capacity_lent, preemptible=r.preemptible,
        reclaim_notice_minutes=r.reclaim_notice_minutes, reclaim_effect=r.reclaim_effect or "",
        health_check_minutes=r.health_check_minutes,
    )  # fmt: skip


@dataclass
class Packet:
    """A miss with what the app adds to the engine's packet: the incidents, the planned changes
    (with their canaries) and the bills of its window."""

    miss: Miss
    incidents: list[Incident] = field(default_factory=list)
    bills: list[dict[str, str]] = field(default_factory=list)
    changes: list[dict[str, str]] = field(default_factory=list)


@dataclass
class ObservedReport:
    reservation: Reservation
    envelope: Envelope
    period: str
    start: datetime | None
    end: datetime | None
    observed: Observed | None
    packets: list[Packet]
    definition: ResultDefinition | None
    cost: CostPerResult | None
    paid_working: str
    counts: dict[str, int]  # uploads by state


def observed_report(
    *, reservation: Reservation, period: str = "", now: datetime | None = None
) -> ObservedReport:
    """The term to `now` (or one month of it, `period` "2026-03") as observed."""
    now = now or timezone.now()
    envelope = envelope_of(reservation)
    definition = ResultDefinition.objects.filter(reservation=reservation).first()
    rows = list(uploads_for(reservation=reservation).order_by("uploaded_at", "pk"))
    counts = {s: sum(1 for r in rows if r.state == s) for s in ObservedState.values}
    window = _window(reservation, period)
    empty = ObservedReport(reservation, envelope, period, None, None, None, [], definition,
                           None, "", counts)  # fmt: skip
    if window is None or reservation.status != ReservationStatus.ACCEPTED:
        return empty
    start, end = window
    done = [r for r in rows if r.state == ObservedState.DONE]
    scheduler = [serialize.scheduler_from_json(r.parsed) for r in done if r.kind in SCHEDULER_KINDS]
    snapshots = [serialize.snapshot_from_json(r.parsed) for r in done if r.kind in NODE_KINDS]
    nodes, per_node, _model = contract_shape(reservation)
    found = observe(
        start=start, end=end, contracted_gpus=(nodes or 0) * (per_node or 0),
        envelope=envelope, scheduler=scheduler, snapshots=snapshots,
        now=now,
    )  # fmt: skip
    jobs = [j for s in scheduler for j in s.jobs if start <= j.submitted < end]
    cost, working = _cost(reservation, period, found, done, jobs, definition, end, now)
    packets = _packets(reservation, found.misses)
    return ObservedReport(reservation, envelope, period, start, end, found, packets, definition,
                          cost, working, counts)  # fmt: skip


def _window(reservation: Reservation, period: str) -> tuple[datetime, datetime] | None:
    """The term, or the named month of it."""
    term = term_bounds(reservation)
    if term is None:
        return None
    if not period:
        return term
    for a, b in month_bounds(*term):
        if f"{a:%Y-%m}" == period:
            return a, b
    return None


def _cost(
    reservation: Reservation, period: str, found: Observed, done: list[ObservedUpload],
    jobs: list[Job], definition: ResultDefinition | None, end: datetime, now: datetime,
) -> tuple[CostPerResult | None, str]:  # fmt: skip
    if definition is None:
        return None, ""
    delivery, _note = delivered(reservation=reservation, now=min(end, now))
    report = delivery.report
    if report is None:
        return None, ""
    if period:
        month = next((m for m in report.months if m.label == period), None)
        if month is None:
            return None, ""
        fees, credit = month.fees.value or Decimal(0), month.credit.value or Decimal(0)
        paid = max(fees - credit, Decimal(0))
        useful: Decimal | None = (month.accepted_gpu_hours.value or Decimal(0)) - (
            month.lost_gpu_hours.value or Decimal(0)
        )
        working = f"{usd(fees)} fees at the agreed rate − {usd(credit)} credit = {usd(paid)}"
    else:
        paid, useful = report.paid.value or Decimal(0), report.useful_gpu_hours.value
        working = report.paid.formula
    predicted = predictions([reservation]).get(reservation.pk)
    rate = predicted.cost_per_useful if predicted else None
    count = _count(definition.unit, done, jobs)
    return cost_per_result(
        unit=definition.unit, count=count, paid=paid, useful_gpu_hours=useful,
        in_use_gpu_hours=sum((d.in_use_gpu_hours for d in found.days), Decimal(0)),
        predicted_per_useful_gpu_hour=None if rate is None else Decimal(str(rate)),
        expected_per_gpu_hour=definition.expected_per_gpu_hour,
    ), working  # fmt: skip


def _count(unit: str, done: list[ObservedUpload], jobs: list[Job]) -> Count:
    if unit == "run":
        return count_results("run", results=None, jobs=jobs)
    parts = [serialize.count_from_json(r.parsed, unit) for r in done
             if r.kind == ObservedKind.RESULTS]  # fmt: skip
    return Count(sum(p.accepted for p in parts), sum(p.replayed for p in parts),
                 sum(p.rejected for p in parts))  # fmt: skip


def _packets(reservation: Reservation, misses: tuple[Miss, ...]) -> list[Packet]:
    """Each miss with the incidents overlapping its window and the reconciled bills of its
    month (read once for all the misses)."""
    if not misses:
        return []
    incidents = list(Incident.objects.filter(reservation=reservation).order_by("opened_at", "pk"))
    bills = list(UsageUpload.objects.filter(reservation=reservation, state=UsageState.DONE))
    changes = list(change_list(reservation=reservation))
    touching = [
        [c for c in changes if c.window.starts_at <= miss.end and c.window.ends_at >= miss.start]
        for miss in misses
    ]
    # The canaries of every change a miss touches are read together, once.
    shown = {c.pk: c for rows in touching for c in rows}
    views = change_views(changes=list(shown.values()))
    summaries = {pk: _change_summary(c, verdict=views[pk].verdict) for pk, c in shown.items()}
    out = []
    for miss, touched in zip(misses, touching, strict=True):
        month = f"{miss.start:%Y-%m}"
        out.append(Packet(
            miss,
            [i for i in incidents if (i.window_start or i.opened_at) <= miss.end
             and (i.restored_at is None or i.restored_at >= miss.start)],
            [{"file": u.original_name,
              "allowed": usd(Decimal(str(u.totals.get("allowed") or 0))),
              "credits": usd(Decimal(str(u.totals.get("credits") or 0)))}
             for u in bills if month in (u.totals.get("credit_months") or [])],
            [summaries[c.pk] for c in touched],
        ))  # fmt: skip
    return out


def _change_summary(change: PlannedChange, *, verdict: str) -> dict[str, str]:
    """A planned change in a miss's window as the packet prints it: what changed where, the
    canary's verdict, and whether it rolled out without a passing canary."""
    if change.opened_at is None:
        rollout = "not yet"
    elif change.unguarded:
        rollout = "without a passing canary"
    else:
        rollout = "after a passing canary"
    return {
        "id": str(change.pk),
        "change": f"{change.get_kind_display()} {change.component}: "
                  f"{change.from_version} → {change.to_version}",
        "nodes": change.node_label,
        "window": f"{change.window.starts_at:%Y-%m-%d %H:%M} to "
                  f"{change.window.ends_at:%Y-%m-%d %H:%M} UTC",
        "canary": f"{verdict} on {', '.join(change.canary.nodes)}",
        "rollout": rollout,
        "outcome": change.outcome,
    }  # fmt: skip
