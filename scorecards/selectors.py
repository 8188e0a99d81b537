"""The scorecard's figures, read in a fixed number of queries however many reservations there are.

Who sees what: the provider sees all its reservations; a buyer sees only the reservations it
contracted with that provider, never another buyer's. A buyer with none yet (following the
comparison page's link from a bid) sees the empty card; anyone else gets a 404.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, QuerySet
from django.http import Http404

from acceptance.models import BurnInRun, Check, DecisionKind, Reservation, ReservationStatus
from bids.choices import BidStatus
from bids.models import Bid, CapacityRequest
from engine.scoring.history import ProviderHistory
from evaluation.history import provider_histories
from incidents.models import Incident
from incidents.selectors import clock_breaches
from orgs.choices import OrgKind
from orgs.models import Organization
from scorecards.realised import Realised, predictions, realised_for

SEVERITIES = ("S1", "S2", "S3")


@dataclass
class ReservationLine:
    reservation: Reservation
    runs: int = 0
    first_try: bool | None = None  # None until decided
    failed_checks: int = 0
    incidents: Counter[str] = field(default_factory=Counter)
    breaches: int = 0
    realised: Realised | None = None

    @property
    def incident_total(self) -> int:
        return sum(self.incidents.values())


@dataclass
class Scorecard:
    provider: Organization
    viewer_is_provider: bool
    lines: list[ReservationLine]
    page: Page[ReservationLine] | None = None  # the lines shown, with their delivered figures
    history: ProviderHistory | None = None

    @property
    def realised_mtbf_hours(self) -> float | None:
        """Accepted node-hours per downtime incident (the reservations' own terms decide which
        severities are downtime); None until one has happened."""
        h = self.history
        return h.node_hours / h.incidents if h is not None and h.incidents else None

    @property
    def decided(self) -> list[ReservationLine]:
        return [x for x in self.lines if x.first_try is not None]

    @property
    def accepted_first_try(self) -> int:
        return sum(1 for x in self.lines if x.first_try)

    @property
    def failed_checks(self) -> int:
        return sum(x.failed_checks for x in self.lines)

    @property
    def incidents(self) -> dict[str, int]:
        total: Counter[str] = Counter()
        for x in self.lines:
            total.update(x.incidents)
        return {s: total[s] for s in SEVERITIES}

    @property
    def breaches(self) -> int:
        return sum(x.breaches for x in self.lines)


def _reservations(*, provider: Organization, viewer: Organization) -> QuerySet[Reservation]:
    rows = Reservation.objects.filter(bid__provider=provider)
    if viewer.pk != provider.pk:
        rows = rows.filter(request__buyer=viewer)
    return rows.select_related("request", "request__buyer", "bid_revision", "decision").order_by(
        "-awarded_at", "-pk"
    )


def _bid_seen_by(*, buyer: Organization, provider: Organization) -> bool:
    """Whether the buyer sees a bid of this provider (the comparison page's link): submitted,
    on one of its requests whose bids are open to it."""
    return (
        Bid.objects.filter(provider=provider, request__buyer=buyer, latest_revision_number__gt=0)
        .exclude(status=BidStatus.DRAFT)
        .exclude(request__in=CapacityRequest.objects.bids_hidden_from_buyer())
        .exists()
    )


def scorecard_provider(*, pk: int, viewer: Organization | None) -> Organization:
    """The provider whose card `viewer` may open, or 404 (never a hint that it exists)."""
    if viewer is None:
        raise Http404
    provider = Organization.objects.filter(pk=pk, kind=OrgKind.PROVIDER).first()
    if provider is None:
        raise Http404
    if viewer.pk == provider.pk:
        return provider
    if viewer.kind == OrgKind.BUYER and (
        Reservation.objects.filter(bid__provider=provider, request__buyer=viewer).exists()
        or _bid_seen_by(buyer=viewer, provider=provider)
    ):
        return provider
    raise Http404


# Delivered figures are worked per reservation (its incidents, windows and terms): a page shows
# this many, so a page's queries stay bounded however many reservations there are.
PAGE_SIZE = 10


def scorecard_for(
    *,
    provider: Organization,
    viewer: Organization,
    now: datetime,
    page: Any = 1,
    per_page: int = PAGE_SIZE,
) -> Scorecard:
    reservations = list(_reservations(provider=provider, viewer=viewer))
    lines = {r.pk: ReservationLine(reservation=r) for r in reservations}
    ids = list(lines)
    first_run: dict[int, int] = {}
    runs = BurnInRun.objects.filter(reservation_id__in=ids).order_by("created_at", "pk")
    for run_id, reservation_id in runs.values_list("pk", "reservation_id"):
        assert reservation_id is not None  # filtered on it
        lines[reservation_id].runs += 1
        first_run.setdefault(reservation_id, run_id)
    for r in reservations:
        decision = getattr(r, "decision", None)
        if decision is not None and r.status != ReservationStatus.PENDING:
            # First try: accepted on its first burn-in run's passing gate, no override, no retry.
            lines[r.pk].first_try = (
                decision.kind == DecisionKind.ACCEPTED
                and decision.run_id == first_run.get(r.pk)
                and lines[r.pk].runs == 1
            )
    failed = (
        Check.objects.filter(run__reservation_id__in=ids, status="fail", mandatory=True)
        .filter(version=F("run__checked_version"))
        .values("run__reservation_id")
        .annotate(n=Count("pk"))
    )
    for row in failed:
        lines[row["run__reservation_id"]].failed_checks = row["n"]
    # The recorded breaches (prefetched: one query for all) stay whatever the severity became.
    incidents = Incident.objects.filter(reservation_id__in=ids).only(
        "reservation_id", "severity", "opened_at", "clocks", "responded_at", "restored_at"
    )
    for inc in incidents.prefetch_related("breaches"):
        line = lines[inc.reservation_id]
        line.incidents[inc.severity] += 1
        line.breaches += clock_breaches(inc, now=now, recorded=inc.breaches.all())
    shown = Paginator([lines[r.pk] for r in reservations], per_page).get_page(page)
    predicted = predictions(x.reservation for x in shown)
    for line in shown:
        r = line.reservation
        line.realised = realised_for(r, now=now, predicted=predicted.get(r.pk))
    buyer_id = None if viewer.pk == provider.pk else viewer.pk
    history = provider_histories(provider_ids=[provider.pk], as_of=now, buyer_id=buyer_id)
    return Scorecard(
        provider=provider,
        viewer_is_provider=viewer.pk == provider.pk,
        lines=[lines[r.pk] for r in reservations],
        page=shown,
        history=history.get(provider.pk),
    )
