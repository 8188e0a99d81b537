from django.apps import AppConfig

from core import panels


class SigningConfig(AppConfig):
    name = "signing"
    verbose_name = "Signing identities"

    def ready(self) -> None:
        panels.register("orgs.members", "signing/_identity_panel.html", order=40)
