from django.apps import AppConfig

from core import panels


class SsoConfig(AppConfig):
    name = "sso"
    verbose_name = "Single sign-on"

    def ready(self) -> None:
        from core import secrets
        from sso.models import OidcConnection

        panels.register("orgs.members", "sso/_members_panel.html", order=45)
        secrets.register(OidcConnection, "client_secret_encrypted")
