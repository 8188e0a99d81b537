from django.apps import AppConfig

from core import panels


class SigningConfig(AppConfig):
    name = "signing"
    verbose_name = "Signing identities"

    def ready(self) -> None:
        from core import secrets
        from signing.models import InstanceCA, SigningIdentity

        panels.register("orgs.members", "signing/_identity_panel.html", order=40)
        secrets.register(InstanceCA, "key_encrypted")
        secrets.register(SigningIdentity, "key_encrypted")
