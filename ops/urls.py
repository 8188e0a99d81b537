from django.urls import path

from ops.views import metrics

app_name = "ops"

urlpatterns = [
    path("metrics", metrics, name="metrics"),
]
