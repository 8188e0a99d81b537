from django.apps import AppConfig

from core import panels


class DeliveryConfig(AppConfig):
    name = "delivery"
    verbose_name = "Delivery: timeline, availability and credits"

    def ready(self) -> None:
        from acceptance.signals import canary_checked
        from delivery.receivers import canary_checked_notify

        canary_checked.connect(canary_checked_notify, dispatch_uid="delivery.canary_checked")
        panels.register(
            "acceptance.reservation_detail", "delivery/_reservation_panel.html", order=30
        )
