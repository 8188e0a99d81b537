from django.apps import AppConfig

from core import panels


class ScorecardsConfig(AppConfig):
    name = "scorecards"
    verbose_name = "Provider scorecards"

    def ready(self) -> None:
        panels.register("delivery.reservation_links", "scorecards/_reservation_link.html", order=20)
        panels.register("provider_links", "scorecards/_provider_link.html")
