"""Small shapes shared by several resources, and the error body the schema documents."""

from __future__ import annotations

from rest_framework import serializers

from orgs.models import Organization


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Field name (or `answers.<question key>`) → messages.",
    )


class OrganizationSerializer(serializers.ModelSerializer[Organization]):
    class Meta:
        model = Organization
        fields = ["name", "slug", "kind"]
        read_only_fields = fields


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    organization = OrganizationSerializer(allow_null=True, help_text="The organisation acted for.")
    organizations = OrganizationSerializer(many=True)
