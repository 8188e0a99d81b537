"""Webhooks: an organisation's endpoints, the events they were sent, and every attempt.

An `Event` is one occurrence of a notice event for one organisation (`key` is the notice's, so
an event told twice is stored once); its `payload` is the generic, versioned JSON, built from
the words the organisation's notice carries and nothing else. A `Delivery` is one event for one
endpoint; each POST is an `Attempt`. Pages address endpoints and deliveries by `public_id`.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from notices.choices import Event as NoticeEvent
from orgs.models import Organization
from webhooks.choices import DeliveryState, PayloadFormat

URL_MAX = 500


class Endpoint(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    url = models.URLField("URL", max_length=URL_MAX)
    description = models.CharField(max_length=200, blank=True)
    payload_format = models.CharField(
        max_length=12, choices=PayloadFormat.choices, default=PayloadFormat.GENERIC
    )
    events = models.JSONField(default=list, help_text="Notice event codes sent here.")
    # Fernet tokens (SIGNING_KEY): the HMAC secret, and the one it replaced while its grace
    # period lasts, so that receivers can switch without refusing a delivery.
    secret_token = models.BinaryField()
    previous_secret_token = models.BinaryField(null=True, blank=True)
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    # PagerDuty's integration key, a Fernet token like the secrets: whoever holds the key can
    # open and resolve incidents on that service.
    routing_key_token = models.BinaryField(null=True, blank=True)
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    secret_rotated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.organization_id}: {self.url}"

    def event_labels(self) -> list[str]:
        labels = dict(NoticeEvent.choices)
        return [str(labels.get(code, code)) for code in self.events]


class Event(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="+")
    event_type = models.CharField(max_length=30, choices=NoticeEvent.choices)
    key = models.CharField(max_length=160)
    occurred_at = models.DateTimeField()
    payload = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "key"], name="one_webhook_event_per_org_and_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.public_id}"


class Delivery(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    state = models.CharField(
        max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    # Automatic retries stop here; a redelivery from the page allows one attempt more.
    attempts_allowed = models.PositiveSmallIntegerField()
    queued_at = models.DateTimeField()
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    redelivery_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="one_delivery_per_endpoint")
        ]
        indexes = [models.Index(fields=["state", "next_attempt_at"], name="webhook_due")]
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.event_id} → {self.endpoint_id}: {self.state}"

    @property
    def redeliverable(self) -> bool:
        return self.state in (DeliveryState.DELIVERED, DeliveryState.FAILED)


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField()
    error = models.CharField(max_length=300, blank=True)
    succeeded = models.BooleanField(default=False)
    # Set when the attempt was a redelivery asked for on the page: by whom.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="one_attempt_per_number")
        ]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"{self.delivery_id} #{self.number}: {self.status_code or self.error}"
