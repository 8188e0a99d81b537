from django.urls import path

from ops import export_api, export_views
from ops.views import metrics

app_name = "ops"

urlpatterns = [
    path("metrics", metrics, name="metrics"),
    path("org/export/", export_views.export_page, name="export"),
    path("org/export/<int:pk>/download/", export_views.export_download, name="export-download"),
    path("org/export/<int:pk>/retry/", export_views.export_retry, name="export-retry"),
    path(
        "api/v1/organization/export/",
        export_api.ExportListView.as_view(),
        name="api-export-list",
    ),
    path(
        "api/v1/organization/export/<int:pk>/",
        export_api.ExportDetailView.as_view(),
        name="api-export-detail",
    ),
    path(
        "api/v1/organization/export/<int:pk>/file/",
        export_api.ExportFileView.as_view(),
        name="api-export-file",
    ),
    path(
        "api/v1/organization/export/<int:pk>/retry/",
        export_api.ExportRetryView.as_view(),
        name="api-export-retry",
    ),
]
