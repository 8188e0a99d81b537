"""Reads the API needs that no page has. The lists across an organisation's reservations live
with their apps (the export in ops reads them too) and are named here for the API's views."""

from __future__ import annotations

from django.db.models import QuerySet

from acceptance.selectors.burnin import reservation_list
from incidents.models import ChangeLogEntry, ChecklistDispute, Incident, RepairEstimate
from incidents.selectors import failed_run_list, incident_evidence_list, incident_list


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


__all__ = [
    "failed_run_list",
    "incident_change_list",
    "incident_estimate_list",
    "incident_evidence_list",
    "incident_list",
    "incident_signoff_dispute_list",
    "reservation_list",
]
