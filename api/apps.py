from django.apps import AppConfig

from core import panels


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "API"

    def ready(self) -> None:
        # The curl recipe on a run's page names the API's URLs, which the run's app cannot.
        panels.register("acceptance.run_upload", "api/_burnin_curl.html")
