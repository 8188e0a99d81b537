from django.apps import AppConfig

from core import panels


class BillingConfig(AppConfig):
    name = "billing"
    verbose_name = "Billing reconciliation"

    def ready(self) -> None:
        from billing.jobs import usage_reconciliations_reap
        from core.jobs import register_reaper

        register_reaper("usage reconciliations", usage_reconciliations_reap)
        panels.register(
            "acceptance.reservation_detail", "billing/_reservation_panel.html", order=20
        )
