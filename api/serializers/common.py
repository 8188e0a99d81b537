"""Small shapes shared by several resources, and the error body the schema documents."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from orgs.models import Organization


class PlainReadMixin:
    """A read-only serializer's output without DRF's generic walk over its fields per object.

    The plan (each readable field's name, source attributes and own `to_representation`) is
    worked out once per serializer; a list serializer reuses one child for every row, so a page
    of 50 requests plans once. The values are the fields' own formatting, so the output is the
    same (tests/api/v1/test_plain_read.py compares it with DRF's for every row shape).
    Only for fields that read plain attributes: no `source="*"`, no method fields.
    """

    _plan: list[tuple[str, list[str] | None, Any]] | None = None

    def to_representation(self, instance: Any) -> dict[str, Any]:
        plan = self._plan
        if plan is None:
            plan = []
            for field in self._readable_fields:  # type: ignore[attr-defined]
                name: str = field.field_name
                if isinstance(field, serializers.RelatedField | serializers.ManyRelatedField):
                    # A related field reads through DRF (its pk-only shortcut saves a query a row).
                    plan.append((name, None, field))
                else:
                    plan.append((name, list(field.source_attrs), field.to_representation))
            self._plan = plan
        out: dict[str, Any] = {}
        for name, attrs, represent in plan:
            if attrs is None:
                value = represent.get_attribute(instance)
                pk = getattr(value, "pk", value)
                out[name] = None if pk is None else represent.to_representation(value)
                continue
            value = instance
            for attr in attrs:
                value = getattr(value, attr)
                if value is None:
                    break
            out[name] = None if value is None else represent(value)
        return out


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


class OrganizationSerializer(PlainReadMixin, serializers.ModelSerializer[Organization]):
    class Meta:
        model = Organization
        fields = ["name", "slug", "kind"]
        read_only_fields = fields


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    organization = OrganizationSerializer(allow_null=True, help_text="The organisation acted for.")
    organizations = OrganizationSerializer(many=True)
