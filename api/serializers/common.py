"""Small shapes shared by several resources, and the error body the schema documents."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from orgs.models import Organization

# Fields whose `to_representation` reads nothing but the value: no request, no parent, no
# context. A serializer made only of these (and of nested plain-read serializers) can share one
# read plan between all its instances, so a list call does not build its fields at all.
_CONTEXT_FREE = (
    serializers.BooleanField,
    serializers.CharField,
    serializers.ChoiceField,
    serializers.DateField,
    serializers.DateTimeField,
    serializers.DecimalField,
    serializers.DictField,
    serializers.FloatField,
    serializers.IntegerField,
    serializers.JSONField,
    serializers.ListField,
    serializers.ManyRelatedField,
    serializers.PrimaryKeyRelatedField,
    serializers.ReadOnlyField,
)
#: Each readable field: (name, how to read it, how to print it). How: a list of source
#: attributes, RELATED (DRF's related-field read), or METHOD (the named method of the serializer
#: at hand, so a method field reads that serializer's context even from a shared plan).
Plan = list[tuple[str, Any, Any]]
RELATED, METHOD = "related", "method"
_SHARED_PLANS: dict[type, Plan] = {}


def _context_free(field: Any) -> bool:
    if isinstance(field, PlainReadMixin | serializers.SerializerMethodField):
        return True
    if isinstance(field, serializers.ListSerializer):
        return _context_free(field.child)
    child = getattr(field, "child", None) or getattr(field, "child_relation", None)
    return isinstance(field, _CONTEXT_FREE) and (child is None or _context_free(child))


class PlainReadMixin:
    """A read-only serializer's output without DRF's generic walk over its fields per object.

    The plan (each readable field's name, source attributes and own `to_representation`) is
    worked out once: per class where every field is context-free (building a ModelSerializer's
    fields took a third of a 50-row list call, and more than a quarter of one bid's), else per
    serializer, and a list serializer reuses one child for every row. The values are the
    fields' own formatting, so the output is the same (tests/api/v1/test_plain_read.py compares
    it with DRF's for every row shape). Method fields call the method of the serializer at
    hand; other fields must read plain attributes or keys (no `source="*"`).
    """

    _plan: Plan | None = None

    def _read_plan(self) -> Plan:
        plan: Plan = []
        shareable = True
        for field in self._readable_fields:  # type: ignore[attr-defined]
            name: str = field.field_name
            shareable = shareable and _context_free(field)
            if isinstance(field, serializers.SerializerMethodField):
                plan.append((name, METHOD, field.method_name))
            elif isinstance(field, serializers.RelatedField | serializers.ManyRelatedField):
                # A related field reads through DRF (its pk-only shortcut saves a query a row).
                plan.append((name, RELATED, field))
            else:
                plan.append((name, list(field.source_attrs), field.to_representation))
        if shareable:
            _SHARED_PLANS[type(self)] = plan
        return plan

    def to_representation(self, instance: Any) -> dict[str, Any]:
        plan = self._plan or _SHARED_PLANS.get(type(self))
        if plan is None:
            plan = self._plan = self._read_plan()
        out: dict[str, Any] = {}
        for name, attrs, represent in plan:
            if attrs is METHOD:
                out[name] = getattr(self, represent)(instance)
                continue
            if attrs is RELATED:
                value = represent.get_attribute(instance)
                pk = getattr(value, "pk", value)
                out[name] = None if pk is None else represent.to_representation(value)
                continue
            value = instance
            for attr in attrs:
                # dict, not Mapping: the ABC check is 4x dearer (87 ns), once per value read.
                value = value[attr] if isinstance(value, dict) else getattr(value, attr)
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
