"""Webhook endpoints and their delivery log, as an organisation's administrators see them: the
signing secret only in the answer that made it, the PagerDuty routing key never."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers.common import BooleanField, ReadModelSerializer, stated, username_field
from notices.choices import Event as NoticeEvent
from webhooks.choices import PayloadFormat
from webhooks.models import URL_MAX, Attempt, Delivery, Endpoint

EVENTS_HELP = (
    "Notice event codes to send (docs/webhooks.md): those the organisation's kind receives "
    "(a provider is not sent `bid_submitted`, a buyer not `award`), at least one."
)


class WebhookEndpointSerializer(ReadModelSerializer[Endpoint]):
    id = serializers.UUIDField(source="public_id", read_only=True, help_text="The endpoint's id.")
    events = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="Notice event codes sent here."
    )
    created_by = username_field("created_by")
    has_routing_key = serializers.SerializerMethodField(
        help_text="A PagerDuty routing key is stored (it is never shown)."
    )
    previous_secret_until = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="After a rotation, deliveries are signed with the old secret too until then.",
    )

    class Meta:
        model = Endpoint
        fields = [
            "id",
            "url",
            "description",
            "payload_format",
            "events",
            "active",
            "has_routing_key",
            "created_by",
            "created_at",
            "secret_rotated_at",
            "previous_secret_until",
        ]
        read_only_fields = fields

    def get_has_routing_key(self, endpoint: Endpoint) -> bool:
        return bool(endpoint.routing_key_token)


class WebhookSecretSerializer(WebhookEndpointSerializer):
    """The endpoint with its signing secret, in the one answer that made it."""

    secret = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="The signing secret (`whsec_…`), shown in this answer only: copy it now. "
        "Null in an idempotent replay (`Idempotent-Replayed: true`): it is never stored in "
        "clear, so rotate the secret to get a new one.",
    )

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]
        read_only_fields = fields

    def to_representation(self, instance: Any) -> dict[str, Any]:
        """The secret is no attribute of the endpoint: it comes in the context, once."""
        shown = WebhookEndpointSerializer(instance, context=self.context).data
        return {**shown, "secret": self.context["secret"]}


def _url_field(required: bool) -> serializers.CharField:
    # Lenient: the service's words say what is wrong with a URL (scheme, host, address).
    return stated(
        serializers.CharField(
            max_length=URL_MAX,
            required=required,
            allow_blank=True,
            trim_whitespace=False,
            help_text="Where each event is posted: an https:// URL whose host resolves only to "
            "public addresses.",
        ),
        {"type": "string", "minLength": 1, "maxLength": URL_MAX, **_required(required)},
    )


def _events_field(*, required: bool) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.ChoiceField(choices=NoticeEvent.choices),
        allow_empty=False,
        required=required,
        help_text=EVENTS_HELP,
    )


def _required(required: bool) -> dict[str, Any]:
    return {"x-required": True} if required else {}


class _EndpointWrite(serializers.Serializer):
    description = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default=""
    )
    events = _events_field(required=True)
    routing_key = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        default="",
        write_only=True,
        help_text="PagerDuty's integration key (Events API v2): required for the PagerDuty "
        "format, stored encrypted, never shown again.",
    )


class WebhookCreateSerializer(_EndpointWrite):
    url = _url_field(required=True)
    payload_format = serializers.ChoiceField(
        choices=PayloadFormat.choices,
        default=PayloadFormat.GENERIC,
        help_text="`generic` (signed Clusterbid JSON), `slack` or `pagerduty`; fixed once created.",
    )


class WebhookUpdateSerializer(_EndpointWrite):
    """Any of the fields; those left out keep their value (the format stays as created, the
    routing key unless a new one is given)."""

    url = _url_field(required=False)
    events = _events_field(required=False)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True)
    active = BooleanField(required=False, help_text="false: send no deliveries.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "payload_format" in self.initial_data:
            raise serializers.ValidationError(
                {"payload_format": "Fixed once created: add another endpoint for another format."}
            )
        return attrs


class WebhookAttemptSerializer(ReadModelSerializer[Attempt]):
    requested_by = username_field(
        "requested_by",
        help_text="Who asked for this attempt as a redelivery; null for an automatic one.",
    )

    class Meta:
        model = Attempt
        fields = [
            "number",
            "started_at",
            "status_code",
            "latency_ms",
            "error",
            "succeeded",
            "requested_by",
        ]
        read_only_fields = fields


class WebhookDeliverySerializer(ReadModelSerializer[Delivery]):
    id = serializers.UUIDField(
        source="public_id", read_only=True, help_text="The delivery's id (`Clusterbid-Delivery`)."
    )
    event_id = serializers.UUIDField(
        source="event.public_id", read_only=True, help_text="`Clusterbid-Event-Id`."
    )
    event_type = serializers.CharField(source="event.event_type", read_only=True)
    occurred_at = serializers.DateTimeField(source="event.occurred_at", read_only=True)
    subject = serializers.SerializerMethodField(help_text="The notice's subject the event carries.")
    attempt_log = WebhookAttemptSerializer(many=True, read_only=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "event_id",
            "event_type",
            "occurred_at",
            "subject",
            "state",
            "attempts",
            "next_attempt_at",
            "attempt_log",
        ]
        read_only_fields = fields

    def get_subject(self, delivery: Delivery) -> str:
        return str((delivery.event.payload.get("data") or {}).get("subject", ""))
