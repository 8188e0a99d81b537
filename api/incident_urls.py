"""An incident by API: its clocks, severity and sign-off (api.views.incidents) and its record:
changes, estimates, disputes, the ticket (api.views.incident_record)."""

from __future__ import annotations

from django.urls import path

from api.views import incident_record, incidents

INCIDENT_ROUTES = [
    path("incidents/<int:pk>/", incidents.IncidentDetailView.as_view(), name="incident-detail"),
    path(
        "incidents/<int:pk>/severity/",
        incidents.IncidentSeverityView.as_view(),
        name="incident-severity",
    ),
    path(
        "incidents/<int:pk>/severity/accept/",
        incidents.IncidentSeverityAcceptView.as_view(),
        name="incident-severity-accept",
    ),
    path(
        "incidents/<int:pk>/severity/reject/",
        incidents.IncidentSeverityRejectView.as_view(),
        name="incident-severity-reject",
    ),
    path(
        "incidents/<int:pk>/acknowledge/",
        incidents.IncidentAcknowledgeView.as_view(),
        name="incident-acknowledge",
    ),
    path(
        "incidents/<int:pk>/dispute/",
        incidents.IncidentDisputeView.as_view(),
        name="incident-dispute",
    ),
    path(
        "incidents/<int:pk>/responded/",
        incidents.IncidentRespondedView.as_view(),
        name="incident-responded",
    ),
    path(
        "incidents/<int:pk>/restored/",
        incidents.IncidentRestoredView.as_view(),
        name="incident-restored",
    ),
    path(
        "incidents/<int:pk>/evidence/",
        incidents.IncidentEvidenceView.as_view(),
        name="incident-evidence",
    ),
    path(
        "incidents/<int:pk>/signoff/",
        incidents.IncidentSignoffView.as_view(),
        name="incident-signoff",
    ),
    path("incidents/<int:pk>/close/", incidents.IncidentCloseView.as_view(), name="incident-close"),
    path(
        "reservations/<int:pk>/incidents/step-times/",
        incident_record.StepTimesOpenView.as_view(),
        name="reservation-incident-step-times",
    ),
    path(
        "incidents/<int:pk>/fewer-nodes/",
        incident_record.FewerNodesView.as_view(),
        name="incident-fewer-nodes",
    ),
    path(
        "incidents/<int:pk>/changes/",
        incident_record.ChangeListView.as_view(),
        name="incident-changes",
    ),
    path(
        "incidents/<int:pk>/changes/<int:change>/decide/",
        incident_record.ChangeDecideView.as_view(),
        name="incident-change-decide",
    ),
    path(
        "incidents/<int:pk>/changes/<int:change>/apply/",
        incident_record.ChangeApplyView.as_view(),
        name="incident-change-apply",
    ),
    path(
        "incidents/<int:pk>/estimates/",
        incident_record.EstimateListView.as_view(),
        name="incident-estimates",
    ),
    path(
        "incidents/<int:pk>/signoff-disputes/",
        incident_record.SignoffDisputeListView.as_view(),
        name="incident-signoff-disputes",
    ),
    path(
        "incidents/<int:pk>/ticket/",
        incident_record.TicketPdfView.as_view(),
        name="incident-ticket",
    ),
]
