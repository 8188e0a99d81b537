from django.apps import AppConfig

from core import panels


class DeliveryConfig(AppConfig):
    name = "delivery"
    verbose_name = "Delivery: timeline, availability and credits"

    def ready(self) -> None:
        panels.register(
            "acceptance.reservation_detail", "delivery/_reservation_panel.html", order=30
        )
