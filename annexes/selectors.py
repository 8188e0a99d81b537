"""Who may see which annex: the buyer sees everything, the awarded provider its contract annex
and statements. On a split award each reservation (lot and provider) has its own, and a
provider sees only those of its own reservations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from acceptance.models import Reservation, ReservationStatus
from annexes.document.outcome import outcome_periods
from annexes.document.snapshot import scores_not_current
from annexes.document.statement import statement_months
from annexes.models import Annex, AnnexJob, AnnexKind
from bids.models import CapacityRequest
from core.errors import ServiceError
from evaluation.comparison import comparison_state
from orgs.models import Organization
from questionnaire.selectors import agreed_terms, revision_conflicts


def _reservations(capacity_request: CapacityRequest) -> list[Reservation]:
    return list(
        Reservation.objects.filter(request=capacity_request)
        .select_related("bid__provider", "lot")
        .order_by("lot__number", "bid__provider__name", "pk")
    )


def is_split(reservations: list[Reservation]) -> bool:
    """A split award (a scenario's): one reservation per lot and provider, each its own annex."""
    return any(r.lot_id is not None for r in reservations)


def awarded_provider_id(
    capacity_request: CapacityRequest, reservation: Reservation | None = None
) -> int | None:
    """The provider party to an annex: its reservation's, else the request's single award's."""
    if reservation is not None:
        return reservation.bid.provider_id
    return (
        Reservation.objects.filter(request=capacity_request, lot__isnull=True)
        .values_list("bid__provider_id", flat=True)
        .first()
    )


@dataclass(frozen=True)
class AnnexAccess:
    """The annex kinds an organisation may read on a request and, on a split award, whose
    reservations' (None: every one, for the buyer). Reads like the list of kinds it holds."""

    kinds: tuple[str, ...]
    reservations: tuple[Reservation, ...] = ()
    every_reservation: bool = True

    def __iter__(self) -> Iterator[str]:
        return iter(self.kinds)

    def __contains__(self, kind: object) -> bool:
        return kind in self.kinds

    def __len__(self) -> int:
        return len(self.kinds)

    def allows(self, *, kind: str, reservation_id: int | None) -> bool:
        if kind not in self.kinds:
            return False
        if reservation_id is None or self.every_reservation:
            return True
        return reservation_id in {r.pk for r in self.reservations}

    def where(self) -> Q:
        """Rows of annexes or jobs this access reads."""
        rows = Q(kind__in=self.kinds)
        if not self.every_reservation:
            ids = [r.pk for r in self.reservations]
            rows &= Q(reservation__isnull=True) | Q(reservation_id__in=ids)
        return rows

    def scopes(self) -> list[tuple[str, Reservation | None]]:
        """(kind, reservation) of each section the annex page shows, in page order."""
        split = [r for r in self.reservations if r.lot_id is not None]
        if not split:
            return [(kind, None) for kind in self.kinds]
        out: list[tuple[str, Reservation | None]] = []
        if AnnexKind.COMPARISON in self.kinds:
            out.append((AnnexKind.COMPARISON, None))
        own = [k for k in (AnnexKind.CONTRACT, AnnexKind.STATEMENT, AnnexKind.OUTCOME) if k in self]
        for reservation in split:
            out += [(kind, reservation) for kind in own]
        return out


def annex_access_for(*, org: Organization, capacity_request: CapacityRequest) -> AnnexAccess:
    reservations = _reservations(capacity_request)
    if org.pk == capacity_request.buyer_id:
        kinds = (AnnexKind.CONTRACT, AnnexKind.COMPARISON, AnnexKind.STATEMENT, AnnexKind.OUTCOME)
        return AnnexAccess(kinds, tuple(reservations))
    own = tuple(r for r in reservations if r.bid.provider_id == org.pk)
    if not own:
        return AnnexAccess(())
    provider_kinds = (AnnexKind.CONTRACT, AnnexKind.STATEMENT, AnnexKind.OUTCOME)
    return AnnexAccess(provider_kinds, own, every_reservation=False)


def annex_kinds_for(*, org: Organization, capacity_request: CapacityRequest) -> AnnexAccess:
    return annex_access_for(org=org, capacity_request=capacity_request)


def annex_request_for_org(
    *, org: Organization | None, pk: int
) -> tuple[CapacityRequest, AnnexAccess]:
    """The request and the annexes the org may see; 404 when it may see none."""
    if org is None:
        raise Http404
    request = CapacityRequest.objects.select_related("buyer").filter(pk=pk).first()
    if request is None:
        raise Http404
    access = annex_access_for(org=org, capacity_request=request)
    if not access:
        raise Http404
    return request, access


def annex_reservation_for(
    *, access: AnnexAccess, kind: str, reservation_id: object
) -> Reservation | None:
    """The reservation a generate request names, checked against what the org may see; a
    split award's contract annex and statements name one, nothing else does."""
    split = [r for r in access.reservations if r.lot_id is not None]
    if kind == AnnexKind.COMPARISON or not split:
        return None
    if reservation_id in (None, ""):
        ids = ", ".join(f"{r.pk} (lot {r.lot.number if r.lot else '?'})" for r in split)
        raise ServiceError(
            {"reservation": [f"This request was split between providers: name the reservation "
                             f"whose annex to generate: {ids}."]}
        )  # fmt: skip
    chosen = next((r for r in split if str(r.pk) == str(reservation_id)), None)
    if chosen is None:
        raise Http404
    return chosen


def annex_blocker(
    *, capacity_request: CapacityRequest, kind: str, reservation: Reservation | None = None
) -> str | None:
    """Why an annex of `kind` cannot be generated yet (None when it can)."""
    if kind == AnnexKind.CONTRACT and awarded_provider_id(capacity_request, reservation) is None:
        if is_split(_reservations(capacity_request)):
            return "This request was split between providers: generate each lot's annex."
        return "Award a bid first: the contract annex states the awarded bid's terms."
    if kind == AnnexKind.STATEMENT and not statement_periods(
        capacity_request=capacity_request, reservation=reservation
    ):
        return "Statements cover accepted time: they start with the term, once the buyer accepts."
    if kind == AnnexKind.OUTCOME and not outcome_periods_for(capacity_request=capacity_request):
        return "Outcome reports cover accepted time: they start with the term, once accepted."
    if kind == AnnexKind.COMPARISON:
        return scores_not_current(comparison_state(capacity_request=capacity_request)[0])
    return None


def annex_conflicts(
    *, capacity_request: CapacityRequest, kind: str, reservation: Reservation | None = None
) -> list[str]:
    """Before a contract annex is generated: the facts the awarded revision states twice with
    two values (the annex prints each once, from its home; the parties should settle it)."""
    if kind != AnnexKind.CONTRACT:
        return []
    if reservation is None:
        reservation = (
            Reservation.objects.select_related("bid_revision")
            .filter(request=capacity_request, lot__isnull=True)
            .first()
        )
    if reservation is None:
        return []
    agreed = agreed_terms(capacity_request=capacity_request)
    return [c.message for c in revision_conflicts(revision=reservation.bid_revision, agreed=agreed)]


def statement_periods(
    *, capacity_request: CapacityRequest, reservation: Reservation | None = None
) -> list[str]:
    """The months a statement can be generated for, newest first."""
    if reservation is None:
        reservation = Reservation.objects.filter(
            request=capacity_request, lot__isnull=True, status=ReservationStatus.ACCEPTED
        ).first()
    elif reservation.status != ReservationStatus.ACCEPTED:
        reservation = None
    return list(reversed(statement_months(reservation))) if reservation is not None else []


def outcome_periods_for(
    *, capacity_request: CapacityRequest, reservation: Reservation | None = None
) -> list[str]:
    """ "" (the term to date) then the term's months, newest first."""
    if reservation is None:
        reservation = Reservation.objects.filter(request=capacity_request, lot__isnull=True).first()
    periods = outcome_periods(reservation)
    return [*periods[:1], *reversed(periods[1:])]


def annex_sources_changed(*, capacity_request: CapacityRequest, kind: str, latest: Annex) -> bool:
    """Whether generating now would issue a new version: today's sources differ from `latest`'s
    snapshot (after acceptance, for one, the contract annex gains the hand-over baseline)."""
    from annexes.document.render import snapshot_sha256
    from annexes.document.snapshot import snapshot_for

    try:
        snapshot = snapshot_for(
            capacity_request=capacity_request,
            kind=kind,
            period=latest.period,
            reservation=latest.reservation,
        )
    except ValueError:
        return False
    return snapshot_sha256(snapshot) != latest.snapshot_sha256


def annex_list(*, capacity_request: CapacityRequest, kinds: AnnexAccess) -> QuerySet[Annex]:
    return (
        Annex.objects.filter(request=capacity_request)
        .filter(kinds.where())
        .select_related("created_by", "reservation__lot")
        .annotate(signature_count=Count("signatures"))
        .defer("snapshot")
        .order_by("kind", "reservation_id", "-period", "-version")
    )


def annex_jobs(*, capacity_request: CapacityRequest, kinds: AnnexAccess) -> QuerySet[AnnexJob]:
    return (
        AnnexJob.objects.filter(request=capacity_request)
        .filter(kinds.where())
        .select_related("annex")[:50]
    )


def annex_get_for_org(*, org: Organization | None, pk: int) -> Annex:
    annex = (
        Annex.objects.select_related(
            "request__buyer", "reservation__bid__provider", "reservation__lot"
        )
        .filter(pk=pk)
        .first()
    )
    if annex is None or org is None:
        raise Http404
    access = annex_access_for(org=org, capacity_request=annex.request)
    if not access.allows(kind=annex.kind, reservation_id=annex.reservation_id):
        raise Http404
    return annex


def annex_job_for_org(*, org: Organization | None, pk: int) -> AnnexJob:
    job = AnnexJob.objects.select_related("request").filter(pk=pk).first()
    if job is None or org is None:
        raise Http404
    access = annex_access_for(org=org, capacity_request=job.request)
    if not access.allows(kind=job.kind, reservation_id=job.reservation_id):
        raise Http404
    return job


def annex_signable_for_org(*, org: Organization | None, pk: int) -> Annex:
    """A contract annex version the org may read (only contract annexes are signed)."""
    annex = annex_get_for_org(org=org, pk=pk)
    if annex.kind != AnnexKind.CONTRACT:
        raise Http404
    return annex
