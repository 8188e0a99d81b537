"""Pilots before the award (the browser side; the API is in api/). The invitation and the
scoring choice are made on the comparison page: evaluation/urls.py."""

from django.urls import path

from acceptance.views import pilot

app_name = "pilots"

urlpatterns = [
    path("pilots/", pilot.pilot_list, name="list"),
    path("pilots/<int:pk>/", pilot.pilot_detail, name="detail"),
    path("pilots/<int:pk>/status.json", pilot.pilot_status, name="status"),
    path("pilots/<int:pk>/upload/", pilot.pilot_upload, name="upload"),
    path("pilots/<int:pk>/recheck/", pilot.pilot_recheck, name="recheck"),
    path("pilot-evidence/<int:pk>/download/", pilot.evidence_download, name="evidence-download"),
    path("pilot-evidence/<int:pk>/retry/", pilot.evidence_retry, name="evidence-retry"),
    path("pilot-evidence/<int:pk>/withdraw/", pilot.evidence_withdraw, name="evidence-withdraw"),
]
