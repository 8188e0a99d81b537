"""Who may see which annex: the buyer sees everything, the awarded provider its contract annex."""

from __future__ import annotations

from django.db.models import Count, QuerySet
from django.http import Http404

from acceptance.models import Reservation, ReservationStatus
from annexes.document.outcome import outcome_periods
from annexes.document.snapshot import scores_not_current
from annexes.document.statement import statement_months
from annexes.models import Annex, AnnexJob, AnnexKind
from bids.models import CapacityRequest
from evaluation.comparison import comparison_state
from orgs.models import Organization
from questionnaire.selectors import agreed_terms, revision_conflicts


def _awarded_provider_id(capacity_request: CapacityRequest) -> int | None:
    return (
        Reservation.objects.filter(request=capacity_request)
        .values_list("bid__provider_id", flat=True)
        .first()
    )


def annex_kinds_for(*, org: Organization, capacity_request: CapacityRequest) -> list[str]:
    if org.pk == capacity_request.buyer_id:
        return [AnnexKind.CONTRACT, AnnexKind.COMPARISON, AnnexKind.STATEMENT, AnnexKind.OUTCOME]
    if org.pk == _awarded_provider_id(capacity_request):
        return [AnnexKind.CONTRACT, AnnexKind.STATEMENT, AnnexKind.OUTCOME]
    return []


def annex_request_for_org(
    *, org: Organization | None, pk: int
) -> tuple[CapacityRequest, list[str]]:
    """The request and the annex kinds the org may see; 404 when it may see none."""
    if org is None:
        raise Http404
    request = CapacityRequest.objects.select_related("buyer").filter(pk=pk).first()
    if request is None:
        raise Http404
    kinds = annex_kinds_for(org=org, capacity_request=request)
    if not kinds:
        raise Http404
    return request, kinds


def annex_blocker(*, capacity_request: CapacityRequest, kind: str) -> str | None:
    """Why an annex of `kind` cannot be generated yet (None when it can)."""
    if kind == AnnexKind.CONTRACT and _awarded_provider_id(capacity_request) is None:
        return "Award a bid first: the contract annex states the awarded bid's terms."
    if kind == AnnexKind.STATEMENT and not statement_periods(capacity_request=capacity_request):
        return "Statements cover accepted time: they start with the term, once the buyer accepts."
    if kind == AnnexKind.OUTCOME and not outcome_periods_for(capacity_request=capacity_request):
        return "Outcome reports cover accepted time: they start with the term, once accepted."
    if kind == AnnexKind.COMPARISON:
        return scores_not_current(comparison_state(capacity_request=capacity_request)[0])
    return None


def annex_conflicts(*, capacity_request: CapacityRequest, kind: str) -> list[str]:
    """Before a contract annex is generated: the facts the awarded revision states twice with
    two values (the annex prints each once, from its home; the parties should settle it)."""
    if kind != AnnexKind.CONTRACT:
        return []
    reservation = (
        Reservation.objects.select_related("bid_revision").filter(request=capacity_request).first()
    )
    if reservation is None:
        return []
    agreed = agreed_terms(capacity_request=capacity_request)
    return [c.message for c in revision_conflicts(revision=reservation.bid_revision, agreed=agreed)]


def statement_periods(*, capacity_request: CapacityRequest) -> list[str]:
    """The months a statement can be generated for, newest first."""
    reservation = Reservation.objects.filter(
        request=capacity_request, status=ReservationStatus.ACCEPTED
    ).first()
    return list(reversed(statement_months(reservation))) if reservation is not None else []


def outcome_periods_for(*, capacity_request: CapacityRequest) -> list[str]:
    """ "" (the term to date) then the term's months, newest first."""
    reservation = Reservation.objects.filter(request=capacity_request).first()
    periods = outcome_periods(reservation)
    return [*periods[:1], *reversed(periods[1:])]


def annex_sources_changed(*, capacity_request: CapacityRequest, kind: str, latest: Annex) -> bool:
    """Whether generating now would issue a new version: today's sources differ from `latest`'s
    snapshot (after acceptance, for one, the contract annex gains the hand-over baseline)."""
    from annexes.document.render import snapshot_sha256
    from annexes.document.snapshot import snapshot_for

    try:
        snapshot = snapshot_for(capacity_request=capacity_request, kind=kind, period=latest.period)
    except ValueError:
        return False
    return snapshot_sha256(snapshot) != latest.snapshot_sha256


def annex_list(*, capacity_request: CapacityRequest, kinds: list[str]) -> QuerySet[Annex]:
    return (
        Annex.objects.filter(request=capacity_request, kind__in=kinds)
        .select_related("created_by")
        .annotate(signature_count=Count("signatures"))
        .defer("snapshot")
        .order_by("kind", "-period", "-version")
    )


def annex_jobs(*, capacity_request: CapacityRequest, kinds: list[str]) -> QuerySet[AnnexJob]:
    return AnnexJob.objects.filter(request=capacity_request, kind__in=kinds).select_related(
        "annex"
    )[:10]


def annex_get_for_org(*, org: Organization | None, pk: int) -> Annex:
    annex = Annex.objects.select_related("request__buyer").filter(pk=pk).first()
    if annex is None or org is None:
        raise Http404
    if annex.kind not in annex_kinds_for(org=org, capacity_request=annex.request):
        raise Http404
    return annex


def annex_job_for_org(*, org: Organization | None, pk: int) -> AnnexJob:
    job = AnnexJob.objects.select_related("request").filter(pk=pk).first()
    if (
        job is None
        or org is None
        or job.kind not in annex_kinds_for(org=org, capacity_request=job.request)
    ):
        raise Http404
    return job


def annex_signable_for_org(*, org: Organization | None, pk: int) -> Annex:
    """A contract annex version the org may read (only contract annexes are signed)."""
    annex = annex_get_for_org(org=org, pk=pk)
    if annex.kind != AnnexKind.CONTRACT:
        raise Http404
    return annex
