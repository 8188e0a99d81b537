from django.apps import AppConfig

from core import panels


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Failed runs and incidents"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from incidents.failed_runs import release_waiting
        from incidents.jobs import failed_runs_reap

        register_reaper("failed-run analyses", failed_runs_reap)
        # After the reaper frees an organisation's turn (sorted after it by name).
        register_reaper("failed-run analyses, waiting", release_waiting)

        panels.register(
            "acceptance.reservation_detail", "incidents/_reservation_panel.html", order=10
        )
