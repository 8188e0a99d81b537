from django.apps import AppConfig


class AcceptanceConfig(AppConfig):
    name = "acceptance"
    verbose_name = "Acceptance and burn-in"
