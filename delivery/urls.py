"""Maintenance windows, planned changes with their canaries, and the availability downloads
(browser side)."""

from django.urls import path

from delivery import change_views as c
from delivery import views as v

app_name = "delivery"

urlpatterns = [
    path("reservations/<int:pk>/maintenance/new/", v.maintenance_new, name="maintenance-new"),
    path("maintenance/<int:pk>/agree/", v.maintenance_agree, name="maintenance-agree"),
    path("reservations/<int:pk>/availability.csv", v.availability_csv, name="availability-csv"),
    path("reservations/<int:pk>/availability.xlsx", v.availability_xlsx, name="availability-xlsx"),
    path("reservations/<int:pk>/changes/new/", c.change_new, name="change-new"),
    path("changes/<int:pk>/", c.change_detail, name="change-detail"),
    path("changes/<int:pk>/status/", c.change_status, name="change-status"),
    path("changes/<int:pk>/canary/", c.canary_upload, name="canary-upload"),
    path("changes/<int:pk>/answer/", c.change_answer_view, name="change-answer"),
    path("canary-evidence/<int:pk>/", c.canary_evidence_download, name="canary-evidence-download"),
    path("canary-evidence/<int:pk>/retry/", c.canary_evidence_retry, name="canary-evidence-retry"),
    path(
        "canary-evidence/<int:pk>/withdraw/",
        c.canary_evidence_withdraw,
        name="canary-evidence-withdraw",
    ),
]
