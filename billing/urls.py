"""Usage and invoice reconciliation pages (browser side)."""

from django.urls import path

from billing import views as v

app_name = "billing"

urlpatterns = [
    path("reservations/<int:pk>/usage/", v.usage_list, name="usage-list"),
    path("usage/<int:pk>/", v.usage_detail, name="usage-detail"),
    path("usage/<int:pk>/mapping/", v.usage_mapping, name="usage-mapping"),
    path("usage/<int:pk>/retry/", v.usage_retry, name="usage-retry"),
    path("usage/<int:pk>/differences.<str:fmt>", v.usage_export, name="usage-export"),
    path("usage/<int:pk>/download/", v.usage_file, name="usage-file"),
    path("usage/<int:pk>/focus.csv", v.usage_focus, name="usage-focus"),
]
