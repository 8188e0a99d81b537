from django.apps import AppConfig


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Failed runs and incidents"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from incidents.jobs import failed_runs_reap

        register_reaper("failed-run analyses", failed_runs_reap)
