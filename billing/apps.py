from django.apps import AppConfig

from core import panels


class BillingConfig(AppConfig):
    name = "billing"
    verbose_name = "Billing reconciliation"

    def ready(self) -> None:
        panels.register(
            "acceptance.reservation_detail", "billing/_reservation_panel.html", order=20
        )
