from django.apps import AppConfig


class BidsConfig(AppConfig):
    name = "bids"
    verbose_name = "Requests and bids"

    def ready(self) -> None:
        from bids.audit import register_audit_tenancy

        register_audit_tenancy()
