"""Failed-run evidence, its analysis, and the incident record (browser side)."""

from django.urls import path

from incidents import views as v
from incidents.views import baseline as vb
from incidents.views import opening as vo
from incidents.views import record

app_name = "incidents"

urlpatterns = [
    path("reservations/<int:pk>/failed-runs/", v.failed_run_upload, name="failed-run-upload"),
    path("failed-runs/<int:pk>/", v.failed_run_detail, name="failed-run-detail"),
    path("failed-runs/<int:pk>/status.json", v.failed_run_status, name="failed-run-status"),
    path("failed-runs/<int:pk>/retry/", v.failed_run_retry, name="failed-run-retry"),
    path("failed-runs/<int:pk>/incident/", v.incident_open, name="incident-open"),
    path("failed-runs/<int:pk>/attach/", vo.failed_run_attach, name="failed-run-attach"),
    path("reservations/<int:pk>/baseline/", vb.baseline, name="baseline"),
    path(
        "reservations/<int:pk>/baseline/<str:answer>/",
        vb.baseline_answer,
        name="baseline-answer",
    ),
    path("reservations/<int:pk>/incidents/new/", vo.incident_new, name="incident-new"),
    path(
        "reservations/<int:pk>/incidents/step-times/",
        vo.incident_from_steps,
        name="incident-from-steps",
    ),
    path("incidents/<int:pk>/fewer-nodes/", vo.incident_fewer_nodes, name="incident-fewer-nodes"),
    path("failed-run-files/<int:pk>/download/", v.failed_run_file, name="failed-run-file"),
    path("incidents/<int:pk>/", v.incident_detail, name="incident-detail"),
    path("incidents/<int:pk>/severity/", v.incident_severity, name="incident-severity"),
    path(
        "incidents/<int:pk>/severity/<str:answer>/",
        v.incident_severity_answer,
        name="incident-severity-answer",
    ),
    path("incidents/<int:pk>/answer/<str:answer>/", v.incident_answer, name="incident-answer"),
    path(
        "incidents/<int:pk>/<str:what>/record/",
        v.incident_mark,
        name="incident-mark",
    ),
    path("incidents/<int:pk>/evidence/", v.incident_evidence, name="incident-evidence"),
    path("incidents/<int:pk>/signoff/", v.incident_signoff, name="incident-signoff"),
    path("incidents/<int:pk>/dispute/", v.incident_dispute, name="incident-dispute"),
    path("incidents/<int:pk>/times/", v.incident_times, name="incident-times"),
    path("incidents/<int:pk>/close/", v.incident_close, name="incident-close"),
    path("incidents/<int:pk>/changes/", record.change_propose, name="change-propose"),
    path(
        "incidents/<int:pk>/changes/<int:change>/decide/",
        record.change_decide,
        name="change-decide",
    ),
    path(
        "incidents/<int:pk>/changes/<int:change>/apply/",
        record.change_apply,
        name="change-apply",
    ),
    path("incidents/<int:pk>/estimate/", record.estimate_post, name="estimate-post"),
    path("incidents/<int:pk>/ticket.txt", record.ticket_txt, name="ticket-txt"),
    path(
        "incident-evidence/<int:pk>/download/",
        v.incident_evidence_download,
        name="incident-evidence-download",
    ),
]
