from django.apps import AppConfig

from core import panels


class ObservedConfig(AppConfig):
    name = "observed"
    verbose_name = "What was observed"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from observed.jobs import observed_parses_reap

        register_reaper("observed-record parses", observed_parses_reap)
        panels.register(
            "acceptance.reservation_detail", "observed/_reservation_panel.html", order=25
        )
