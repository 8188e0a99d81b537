from django.urls import path

from audit import views

app_name = "audit"

urlpatterns = [
    path("audit/verify/", views.verify, name="verify"),
    path("audit/<str:obj_key>/export.csv", views.export_csv, name="export"),
]
