"""What was observed on a reservation (browser side)."""

from django.urls import path

from observed import views as v

app_name = "observed"

urlpatterns = [
    path("reservations/<int:pk>/observed/", v.observed_page, name="page"),
    path("reservations/<int:pk>/observed/result/", v.result_define, name="result"),
    path("observed/<int:pk>/retry/", v.upload_retry, name="retry"),
    path("observed/<int:pk>/download/", v.upload_file, name="file"),
]
