"""A bid's acknowledgement of one lot's own fixture and terms."""

from __future__ import annotations

from rest_framework import serializers

from acceptance.models import AckStatus


class LotAckExceptionSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=500, help_text="The exception, in a sentence.")
    field = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="The fixture or terms field it concerns (a dotted path); empty: the whole "
        "document.",
    )


class LotAckWriteSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=AckStatus.choices)
    exceptions = LotAckExceptionSerializer(many=True, required=False)
    provider_owner_name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=120,
        help_text="Your incident owner; required with terms unless they already name one.",
    )
    provider_owner_contact = serializers.CharField(required=False, allow_blank=True, max_length=200)


class LotAckSerializer(serializers.Serializer):
    lot = serializers.IntegerField(help_text="The lot's number.")
    fixture_version = serializers.IntegerField(
        allow_null=True, help_text="The lot's own fixture, current version; null: it has none."
    )
    terms_revision = serializers.IntegerField(
        allow_null=True, help_text="The lot's own terms, current revision; null: it has none."
    )
    offered = serializers.BooleanField(
        help_text="Whether the bid offers on this lot (only then does the submit wait for it)."
    )
    current = serializers.BooleanField(
        help_text="Whether the newest acknowledgement covers the current versions."
    )
    stale_reasons = serializers.ListField(child=serializers.CharField())
    acknowledgement = serializers.DictField(
        allow_null=True,
        help_text="The newest: status, fixture_version, terms_revision, exceptions, "
        "provider_owner_name, provider_owner_contact, by, at; null: none yet.",
    )
