"""Maintenance windows, planned changes with their canaries, and the availability downloads
(browser side)."""

from django.urls import path

from acceptance.views import evidence as e
from delivery import change_views as c
from delivery import views as v

# A canary's evidence moves are the burn-in run's views, told the canary is the run's owner.
CANARY = {"owner": c.CANARY_OWNER}

app_name = "delivery"

urlpatterns = [
    path("reservations/<int:pk>/maintenance/new/", v.maintenance_new, name="maintenance-new"),
    path("maintenance/<int:pk>/agree/", v.maintenance_agree, name="maintenance-agree"),
    path("reservations/<int:pk>/availability.csv", v.availability_csv, name="availability-csv"),
    path("reservations/<int:pk>/availability.xlsx", v.availability_xlsx, name="availability-xlsx"),
    path("reservations/<int:pk>/changes/new/", c.change_new, name="change-new"),
    path("changes/<int:pk>/", c.change_detail, name="change-detail"),
    path("changes/<int:pk>/status/", e.run_status, CANARY, name="change-status"),
    path("changes/<int:pk>/canary/", e.run_upload, CANARY, name="canary-upload"),
    path("changes/<int:pk>/answer/", c.change_answer_view, name="change-answer"),
    path(
        "canary-evidence/<int:pk>/",
        e.evidence_download,
        CANARY,
        name="canary-evidence-download",
    ),
    path("canary-evidence/<int:pk>/retry/", e.evidence_retry, CANARY, name="canary-evidence-retry"),
    path(
        "canary-evidence/<int:pk>/withdraw/",
        e.evidence_withdraw,
        CANARY,
        name="canary-evidence-withdraw",
    ),
]
