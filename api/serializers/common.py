"""Small shapes shared by several resources, and the error body the schema documents."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from orgs.models import Organization


class FileListField(serializers.ListField):
    """A repeated multipart file field: the API's side of the pages' `MultipleFileField`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.FileField(), **kwargs)


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Field name (or `answers.<question key>`) → messages.",
    )


class ConfirmSerializer(serializers.Serializer):
    """The body of a move whose lifecycle table says it needs a confirmation."""

    confirm = serializers.BooleanField(
        default=False,
        help_text="true confirms the move; without it the move is refused: 400 naming `confirm`.",
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
