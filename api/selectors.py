"""Reads the API needs that no page has: lists across an organisation's reservations."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Prefetch, Q, QuerySet

from acceptance.models import BurnInRun, OverrideOutcome, OverrideRequest, Reservation
from incidents.models import (
    ChangeLogEntry,
    ChecklistDispute,
    FailedRun,
    Incident,
    IncidentEvidence,
    RepairEstimate,
)


def reservation_list(*, org_ids: Iterable[int]) -> QuerySet[Reservation]:
    """Reservations where the organisation is the buyer or the awarded provider."""
    ids = list(org_ids)
    return (
        Reservation.objects.filter(Q(request__buyer_id__in=ids) | Q(bid__provider_id__in=ids))
        .select_related(
            "bid__provider",
            "bid_revision",
            "fixture_version",
            "decision__by",
            "decision__override__requested_by",
        )
        .prefetch_related(
            Prefetch("runs", queryset=BurnInRun.objects.order_by("created_at")),
            Prefetch(
                "override_requests",
                queryset=OverrideRequest.objects.filter(
                    outcome=OverrideOutcome.PENDING
                ).select_related("requested_by", "decided_by"),
                to_attr="pending_overrides",
            ),
        )
        .order_by("-awarded_at")
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


def incident_change_list(*, incident: Incident) -> QuerySet[ChangeLogEntry]:
    """The change log, first proposed first, as the incident page shows it."""
    return (
        incident.changes.select_related("proposed_by", "decided_by", "applied_by")
        .prefetch_related("evidence")
        .order_by("proposed_at", "pk")
    )


def incident_estimate_list(*, incident: Incident) -> QuerySet[RepairEstimate]:
    """Every revision of the repair estimate, the latest first."""
    return incident.estimates.select_related("posted_by").order_by("-revision")


def incident_signoff_dispute_list(*, incident: Incident) -> QuerySet[ChecklistDispute]:
    return incident.disputes.select_related("by").order_by("at", "pk")
