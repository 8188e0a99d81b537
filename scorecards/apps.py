from django.apps import AppConfig

from core import panels
from scorecards.links import provider_link


class ScorecardsConfig(AppConfig):
    name = "scorecards"
    verbose_name = "Provider scorecards"

    def ready(self) -> None:
        panels.register("delivery.reservation_links", "scorecards/_reservation_link.html", order=20)
        panels.register_renderer("provider_links", provider_link)
