"""Webhook writes: managing an organisation's endpoints (`endpoints`), and recording, sending,
retrying and redelivering what they are sent (`deliveries`)."""

from webhooks.services.deliveries import (
    deliveries_sweep,
    delivery_attempt,
    delivery_redeliver,
    event_record,
)
from webhooks.services.endpoints import (
    endpoint_create,
    endpoint_delete,
    endpoint_rotate_secret,
    endpoint_update,
    secrets_in_force,
)

__all__ = [
    "deliveries_sweep",
    "delivery_attempt",
    "delivery_redeliver",
    "endpoint_create",
    "endpoint_delete",
    "endpoint_rotate_secret",
    "endpoint_update",
    "event_record",
    "secrets_in_force",
]
