"""Reservations, burn-in runs and evidence (the browser side; the API is in api/). The
award page lives in evaluation/views_award.py: it reads the scores."""

from django.urls import path

from acceptance.views import burnin, evidence, findings, override

app_name = "burnin"
# The evidence views serve pilots too; these routes tell them the run is a reservation's.
OWNER = {"owner": burnin.OWNER}

urlpatterns = [
    path("reservations/<int:pk>/", burnin.reservation_detail, name="reservation-detail"),
    path("reservations/<int:pk>/runs/new/", burnin.run_create, name="run-create"),
    path("reservations/<int:pk>/reject/", burnin.reservation_reject, name="reservation-reject"),
    path(
        "reservations/<int:pk>/override/approve/",
        override.override_approve,
        name="override-approve",
    ),
    path(
        "reservations/<int:pk>/override/decline/",
        override.override_decline,
        name="override-decline",
    ),
    path(
        "reservations/<int:pk>/baseline.json",
        burnin.reservation_baseline,
        name="reservation-baseline",
    ),
    path("runs/<int:pk>/", burnin.run_detail, name="run-detail"),
    path("runs/<int:pk>/status.json", evidence.run_status, OWNER, name="run-status"),
    path("runs/<int:pk>/upload/", evidence.run_upload, OWNER, name="run-upload"),
    path("runs/<int:pk>/recheck/", evidence.run_recheck, OWNER, name="run-recheck"),
    path("runs/<int:pk>/accept/", burnin.run_accept, name="run-accept"),
    path("runs/<int:pk>/override/", override.run_override, name="run-override"),
    path(
        "runs/<int:pk>/findings/explain/",
        findings.run_explain_finding,
        name="run-explain-finding",
    ),
    path(
        "evidence/<int:pk>/download/", evidence.evidence_download, OWNER, name="evidence-download"
    ),
    path("evidence/<int:pk>/retry/", evidence.evidence_retry, OWNER, name="evidence-retry"),
    path(
        "evidence/<int:pk>/withdraw/", evidence.evidence_withdraw, OWNER, name="evidence-withdraw"
    ),
]
