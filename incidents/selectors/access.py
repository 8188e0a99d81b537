"""Failed runs, incidents and their evidence as a party may read them: the request's buyer and
the awarded provider; everyone else gets a 404, downloads included."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet
from django.http import Http404

from acceptance.models import Reservation
from incidents.models import (
    FailedRun,
    FailedRunFile,
    Incident,
    IncidentEvidence,
)


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
