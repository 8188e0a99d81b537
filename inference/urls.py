"""The reservation's Inference page, a file's reading and its retry (browser side)."""

from django.urls import path

from inference import views as v

app_name = "inference"

urlpatterns = [
    path("reservations/<int:pk>/inference/", v.served_list, name="served-list"),
    path("served/<int:pk>/", v.served_detail, name="served-detail"),
    path("served/<int:pk>/retry/", v.served_retry, name="served-retry"),
]
