from typing import Any

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from core import panels, secrets
        from notices.signals import notified
        from webhooks.models import Endpoint

        notified.connect(_on_notified, dispatch_uid="webhooks.event_record")
        panels.register("orgs.members", "webhooks/_members_panel.html")
        secrets.register(Endpoint, "secret_token", "previous_secret_token", "routing_key_token")


def _on_notified(
    *, organization: Any, event: str, subject: str, body: str, path: str, key: str, **_: Any
) -> None:
    from webhooks.services import event_record

    event_record(
        organization=organization, event=event, subject=subject, body=body, path=path, key=key
    )
