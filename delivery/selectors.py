"""Reads for the reservation's delivery: the calculator's inputs loaded with a fixed number of
queries (however many incidents and windows there are), the report, the timeline's data.
Tenancy is the reservation's: callers load it with `acceptance.selectors.burnin.reservation_get`
(the buyer and the awarded provider; everyone else gets a 404)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from acceptance.models import Evidence, Reservation
from delivery.models import MaintenanceWindow, PlannedChange
from delivery.terms import contracted_bounds, credit_terms, term_bounds
from engine.delivery.availability import (
    UNAGREED_MAINTENANCE,
    Inputs,
    Outage,
    Report,
    Window,
    compute,
)
from incidents.models import Incident
from incidents.selectors import (
    clock_breaches,
    contract_shape,
    counts,
    incident_standing,
    lost_time,
    partial_lost_time,
    repaired_nodes,
    terms_for,
)

PARTIES = ("buyer", "provider")


@dataclass
class Delivery:
    """What the panel, the API and the exports show."""

    reservation: Reservation
    report: Report | None  # None before the term starts (not accepted)
    lanes: list[str]
    incidents: list[Incident]
    windows: list[MaintenanceWindow]
    terms_source: str
    lost_missing: dict[int, list[str]]  # incident id → the marks its lost GPU-hours lack
    # incident id → "acknowledged", "unanswered" (counted), "awaiting" or "disputed" (not)
    standing: dict[int, str] = field(default_factory=dict)
    # With disputed incidents: the figures as the party that opened them reads them (counted);
    # `report` is the other party's (left out). None when nothing is disputed.
    report_if_counted: Report | None = None
    # incident id → how its last checkpoint was estimated, for those with no recorded time
    checkpoint_sources: dict[int, str] = field(default_factory=dict)
    # With disputed incidents: "buyer" and "provider" → the figures as that party reads them
    # (the disputed incidents it opened counted, those it disputes left out).
    readings: dict[str, Report] = field(default_factory=dict)

    @property
    def totals_reading(self) -> str:
        """Whose reading the totals (`report`) are: the party that opened none of the disputed
        incidents; "" when each party opened some (the totals then count only what is not in
        dispute)."""
        same = [party for party, found in self.readings.items() if found is self.report]
        return same[0] if len(same) == 1 else ""

    @property
    def disputed(self) -> list[Incident]:
        return [i for i in self.incidents if self.standing.get(i.pk) == "disputed"]

    @property
    def awaiting(self) -> list[Incident]:
        return [i for i in self.incidents if self.standing.get(i.pk) == "awaiting"]


def maintenance_list(*, reservation: Reservation) -> QuerySet[MaintenanceWindow]:
    return MaintenanceWindow.objects.filter(reservation=reservation).select_related(
        "announced_by", "agreed_by", "reservation__request__buyer", "reservation__bid__provider"
    )


def maintenance_get(*, reservation: Reservation, pk: int) -> MaintenanceWindow:
    return maintenance_list(reservation=reservation).get(pk=pk)


def _evidence_nodes(reservation: Reservation) -> list[str]:
    """Node labels on burn-in evidence ("a+b" is a subset of two; "" the whole allocation)."""
    seen: list[str] = []
    rows = Evidence.objects.filter(run__reservation=reservation).exclude(node="")
    for label in rows.values_list("node", flat=True).distinct().order_by("node"):
        for node in label.split("+"):
            if node.strip() and node.strip() not in seen:
                seen.append(node.strip())
    return seen


def reservation_node_labels(*, reservation: Reservation) -> list[str]:
    """The node labels the record already knows for the reservation: its burn-in evidence, its
    maintenance windows and its incidents. Fewer than the contracted count means some are
    still unnamed."""
    labels = _evidence_nodes(reservation)
    for window_nodes in MaintenanceWindow.objects.filter(reservation=reservation).values_list(
        "nodes", flat=True
    ):
        labels += [str(n) for n in window_nodes or []]
    for incident in Incident.objects.filter(reservation=reservation).select_related("failed_run"):
        labels += repaired_nodes(incident)
    return sorted(dict.fromkeys(labels))


def node_lanes(labels: list[str], contracted: int) -> list[str]:
    """The labels seen, sorted, padded with "node N" placeholders up to the contracted count."""
    lanes = sorted(dict.fromkeys(labels))
    n = 1
    while len(lanes) < contracted:
        name = f"node {n}"
        if name not in lanes:
            lanes.append(name)
        n += 1
    return lanes


def _lost(incident: Incident) -> tuple[Decimal, list[str], str]:
    """The incident's lost GPU-hours as the incident page computes them: an S3 by the nodes
    out (partial capacity), otherwise by phase; 0 with the missing marks when neither can. The
    last item says how an unrecorded checkpoint time was estimated ("" when recorded)."""
    partial = partial_lost_time(incident)
    full = lost_time(incident)
    result = partial.get("result")
    if incident.severity == "S3" and result:
        return Decimal(str(result["gpu_hours"])), [], result.get("checkpoint_source", "")
    if full.get("rows") is not None:
        return Decimal(str(full["total"])), [], full.get("checkpoint_source", "")
    if result:
        return Decimal(str(result["gpu_hours"])), [], result.get("checkpoint_source", "")
    return Decimal(0), list(full.get("missing") or []) or [str(full.get("error") or "")], ""


def _outage_start(incident: Incident, clock_start: datetime | None) -> datetime:
    """Where the incident's downtime starts: its window's start when that lies between the
    term's clock start and the opening (a time read from an uploaded log may predate the term),
    else the opening."""
    start = incident.window_start
    if start is None or start > incident.opened_at:
        return incident.opened_at
    if clock_start is not None and start < clock_start:
        return incident.opened_at
    return start


@dataclass
class _Counted:
    """The incidents as the calculator takes them: those that count, and the disputed ones
    with the party that opened each (it counts them; the other party does not)."""

    outages: list[Outage] = field(default_factory=list)
    disputed: list[tuple[Outage, str]] = field(default_factory=list)
    lost_missing: dict[int, list[str]] = field(default_factory=dict)
    checkpoint_sources: dict[int, str] = field(default_factory=dict)
    standing: dict[int, str] = field(default_factory=dict)


def _counted(incidents: list[Incident], *, now: datetime, clock_start: datetime | None) -> _Counted:
    out = _Counted()
    for item in incidents:
        lost, missing, checkpoint_source = _lost(item)
        if missing:
            out.lost_missing[item.pk] = missing
        if checkpoint_source:
            out.checkpoint_sources[item.pk] = checkpoint_source
        # The recorded breaches (facts) and any clock run out since the last sweep.
        breaches = clock_breaches(item, now=now, recorded=item.breaches.all())
        outage = Outage(f"incident #{item.pk}", item.severity, _outage_start(item, clock_start),
                        item.restored_at, tuple(repaired_nodes(item)), breaches, lost)  # fmt: skip
        out.standing[item.pk] = incident_standing(item, now=now)
        if counts(out.standing[item.pk]):
            out.outages.append(outage)
        elif out.standing[item.pk] == "disputed":
            out.disputed.append((outage, item.opened_by_party))
    return out


def _readings(
    inputs: Inputs, counted: _Counted, *, report: Report, billed_usd: Decimal | None
) -> tuple[Report | None, dict[str, Report]]:
    """With disputed incidents: the figures counting all of them, and each party's reading
    (the disputed incidents it opened counted, those it disputes left out)."""
    if not counted.disputed:
        return None, {}

    def with_(extra: list[Outage]) -> Report:
        return compute(replace(inputs, outages=(*inputs.outages, *extra)), billed_usd=billed_usd)

    every = with_([o for o, _party in counted.disputed])
    readings: dict[str, Report] = {}
    for party in PARTIES:
        own = [o for o, opener in counted.disputed if opener == party]
        if not own:
            readings[party] = report
        elif len(own) == len(counted.disputed):
            readings[party] = every
        else:
            readings[party] = with_(own)
    return every, readings


def _lanes_for(
    reservation: Reservation, incidents: list[Incident], windows: list[Any]
) -> list[str]:
    nodes, _per_node, _model = contract_shape(reservation)
    labels = _evidence_nodes(reservation)
    for item in incidents:
        # The reservation already read (with its revision and request), not one per incident:
        # an S3's lost time reads the reservation's shape.
        item.reservation = reservation
        labels += repaired_nodes(item)
    for window in windows:
        labels += list(window.nodes)
    return node_lanes(labels, nodes or 1)


def delivery_for(
    *, reservation: Reservation, now: datetime | None = None, billed_usd: Decimal | None = None
) -> Delivery:
    now = now or timezone.now()
    incidents = list(
        Incident.objects.filter(reservation=reservation)
        .select_related("failed_run")
        .prefetch_related("breaches")
        .order_by("opened_at", "pk")
    )
    windows = list(maintenance_list(reservation=reservation).order_by("starts_at", "pk"))
    nodes, per_node, _model = contract_shape(reservation)
    lanes = _lanes_for(reservation, incidents, windows)
    _revision, snapshot, source = terms_for(reservation)
    term = term_bounds(reservation)
    counted = _counted(incidents, now=now, clock_start=reservation.clock_start)
    # A window in which a change rolled out without a passing canary loses its exclusion.
    unguarded = set(
        PlannedChange.objects.filter(reservation=reservation, unguarded=True).values_list(
            "window_id", flat=True
        )
    )
    for w in windows:
        if w.pk in unguarded:
            counted.outages.append(
                Outage(f"maintenance #{w.pk} (a change rolled out without a passing canary)",
                       UNAGREED_MAINTENANCE, w.starts_at, w.ends_at, tuple(w.nodes))
            )  # fmt: skip
        elif not w.excluded:
            counted.outages.append(
                Outage(f"maintenance #{w.pk} (short notice, not agreed)", UNAGREED_MAINTENANCE,
                       w.starts_at, w.ends_at, tuple(w.nodes))
            )  # fmt: skip
    report = report_if_counted = None
    readings: dict[str, Report] = {}
    if term is not None:
        revision = reservation.bid_revision
        first, _end = contracted_bounds(reservation)
        inputs = Inputs(
            term_start=term[0], term_end=term[1], contracted_start=first,
            nodes=tuple(lanes), contracted_nodes=nodes or 1, gpus_per_node=per_node or 1,
            rate=reservation.price_per_gpu_hour or Decimal(0),
            fees_usd=revision.fees_usd or Decimal(0), egress_usd=revision.egress_usd or Decimal(0),
            terms=credit_terms(snapshot), now=now, outages=tuple(counted.outages),
            maintenance=tuple(
                Window(f"maintenance #{w.pk}", w.starts_at, w.ends_at, tuple(w.nodes))
                for w in windows if w.excluded and w.pk not in unguarded
            ),
        )  # fmt: skip
        report = compute(inputs, billed_usd=billed_usd)
        report_if_counted, readings = _readings(
            inputs, counted, report=report, billed_usd=billed_usd
        )
    return Delivery(reservation, report, lanes, incidents, windows, source, counted.lost_missing,
                    counted.standing, report_if_counted, counted.checkpoint_sources,
                    readings)  # fmt: skip


SEVERITY_COLOURS = {"S1": "#b42318", "S2": "#d97706", "S3": "#2563eb"}


def timeline_data(delivery: Delivery, *, now: datetime) -> dict[str, Any]:
    """Bars per node lane for the Plotly timeline: the term, maintenance, incidents."""
    bars: list[dict[str, Any]] = []
    lanes = delivery.lanes
    report = delivery.report

    def add(kind: str, label: str, start: datetime, end: datetime, nodes: list[str],
            colour: str) -> None:  # fmt: skip
        for node in nodes or lanes:
            bars.append({"kind": kind, "label": label, "node": node, "start": start.isoformat(),
                         "end": end.isoformat(), "colour": colour})  # fmt: skip

    if report is not None:
        add("term", "Term", report.term_start, report.term_end, [], "#d1d5db")
    for w in delivery.windows:
        colour = "#7c3aed" if w.excluded else "#9f1239"
        label = f"Maintenance #{w.pk} ({w.state})"
        add("maintenance", label, w.starts_at, w.ends_at, list(w.nodes), colour)
    for i in delivery.incidents:
        start = i.window_start or i.opened_at
        label = f"Incident #{i.pk} {i.severity}{'' if i.restored_at else ' (open)'}"
        add("incident", label, start, i.restored_at or now, repaired_nodes(i),
            SEVERITY_COLOURS.get(i.severity, "#6b7280"))  # fmt: skip
    return {"lanes": lanes, "bars": bars}
