from django.apps import AppConfig

from core import panels


class SsoConfig(AppConfig):
    name = "sso"
    verbose_name = "Single sign-on"

    def ready(self) -> None:
        panels.register("orgs.members", "sso/_members_panel.html", order=45)
