from django.apps import AppConfig

from core import panels


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Failed runs and incidents"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from incidents.jobs import failed_runs_reap

        register_reaper("failed-run analyses", failed_runs_reap)

        panels.register(
            "acceptance.reservation_detail", "incidents/_reservation_panel.html", order=10
        )
