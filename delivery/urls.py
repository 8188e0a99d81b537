"""Maintenance windows and the availability downloads (browser side)."""

from django.urls import path

from delivery import views as v

app_name = "delivery"

urlpatterns = [
    path("reservations/<int:pk>/maintenance/new/", v.maintenance_new, name="maintenance-new"),
    path("maintenance/<int:pk>/agree/", v.maintenance_agree, name="maintenance-agree"),
    path("reservations/<int:pk>/availability.csv", v.availability_csv, name="availability-csv"),
    path("reservations/<int:pk>/availability.xlsx", v.availability_xlsx, name="availability-xlsx"),
]
