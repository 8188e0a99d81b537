"""Pilots before the award (the browser side; the API is in api/). The invitation and the
scoring choice are made on the comparison page: evaluation/urls.py."""

from django.urls import path

from acceptance.views import evidence, pilot

app_name = "pilots"
OWNER = {"owner": pilot.OWNER}

urlpatterns = [
    path("pilots/", pilot.pilot_list, name="list"),
    path("pilots/<int:pk>/", pilot.pilot_detail, name="detail"),
    # The evidence moves are the burn-in run's views, told the run is a pilot's.
    path("pilots/<int:pk>/status.json", evidence.run_status, OWNER, name="status"),
    path("pilots/<int:pk>/upload/", evidence.run_upload, OWNER, name="upload"),
    path("pilots/<int:pk>/recheck/", evidence.run_recheck, OWNER, name="recheck"),
    path(
        "pilot-evidence/<int:pk>/download/",
        evidence.evidence_download,
        OWNER,
        name="evidence-download",
    ),
    path("pilot-evidence/<int:pk>/retry/", evidence.evidence_retry, OWNER, name="evidence-retry"),
    path(
        "pilot-evidence/<int:pk>/withdraw/",
        evidence.evidence_withdraw,
        OWNER,
        name="evidence-withdraw",
    ),
]
