from django.urls import path

from audit import views

app_name = "audit"

urlpatterns = [
    path("audit/", views.org_log_page, name="log"),
    path("audit/export.csv", views.org_log_csv, name="log-export"),
    path("audit/verify/", views.verify, name="verify"),
    path("audit/<str:obj_key>/export.csv", views.export_csv, name="export"),
]
