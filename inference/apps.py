from django.apps import AppConfig

from core import panels


class InferenceConfig(AppConfig):
    name = "inference"
    verbose_name = "Inference: served responses against the promise"

    def ready(self) -> None:
        from core.jobs import register_reaper
        from inference.jobs import served_parses_reap

        register_reaper("served-responses parses", served_parses_reap)
        panels.register(
            "acceptance.reservation_detail", "inference/_reservation_panel.html", order=35
        )
