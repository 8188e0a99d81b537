"""Small shapes shared by several resources, and the error body the schema documents."""

from __future__ import annotations

import copy
import copyreg
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, ClassVar, TypeVar

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import ISO_8601, serializers
from rest_framework.fields import SkipField
from rest_framework.relations import PKOnlyObject
from rest_framework.settings import api_settings

from core.uploads import empty_file_message
from orgs.models import Organization

M = TypeVar("M", bound=models.Model)
F = TypeVar("F", bound=serializers.Field)
Copier = Callable[[serializers.Field], serializers.Field]


class UtcDateTimeField(serializers.DateTimeField):
    """A time as ISO 8601 in UTC (`...Z`). DRF's default looks the active time zone up for
    every value, a context-local read that cost more than the formatting itself."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("default_timezone", UTC)
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> Any:
        # A stored time comes back in UTC already: DRF's conversion to UTC would hand back the
        # same object, and its format lookups cost more than the printing (four times a row).
        if (
            type(value) is datetime
            and value.tzinfo is UTC
            and getattr(self, "timezone", None) is UTC
            and getattr(self, "format", api_settings.DATETIME_FORMAT) == ISO_8601
        ):
            return value.isoformat()[:-6] + "Z"
        return super().to_representation(value)


class DecimalField(serializers.DecimalField):
    """A decimal that refuses a blank string: DRF's own reads `""` as null wherever null is
    allowed, so a script that left a price blank would erase it without a word. A form's empty
    field still means null (DRF turns it into None before it gets here)."""

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if isinstance(data, str) and not data.strip():
            self.fail("invalid")
        return super().validate_empty_values(data)


class BooleanField(serializers.BooleanField):
    """A yes/no that refuses a JSON number: DRF's own reads `0` and `1` as false and true, which
    the schema's `boolean` does not allow. Text still reads as DRF reads it (a form sends
    "true", "on", "1")."""

    def to_internal_value(self, data: Any) -> bool:
        if isinstance(data, int | float) and not isinstance(data, bool):
            self.fail("invalid", input=data)
        return super().to_internal_value(data)


# A model serializer that writes builds its decimals and yes/nos with the fields above.
FIELD_MAPPING = {
    **serializers.ModelSerializer.serializer_field_mapping,
    models.DecimalField: DecimalField,
    models.BooleanField: BooleanField,
}


class WriteModelSerializer(serializers.ModelSerializer[M]):
    """A model serializer that writes: the fields above, and a number's bounds in the model
    validator's own words ("At most 262,144 GPUs."), as the pages say them. DRF keeps the
    limit of a model's MaxValueValidator but drops its message for its own."""

    serializer_field_mapping = FIELD_MAPPING

    def build_standard_field(self, field_name: str, model_field: Any) -> tuple[Any, dict]:
        field_class, kwargs = super().build_standard_field(field_name, model_field)
        words = {}
        for kind, key in ((MinValueValidator, "min_value"), (MaxValueValidator, "max_value")):
            own = next(
                (
                    v.message
                    for v in model_field.validators
                    if type(v) is kind
                    and v.limit_value == kwargs.get(key)
                    and v.message != kind.message
                ),
                None,
            )
            if own is not None:
                words[key] = str(own)
        if words:
            kwargs["error_messages"] = {**kwargs.get("error_messages", {}), **words}
        return field_class, kwargs


class ReadModelSerializer(serializers.ModelSerializer[M]):
    """A model serializer whose stored times print in UTC (the times the database holds).

    Its fields are worked out from the model once per class and copied for each instance, as
    DRF does with declared fields: working them out (model introspection, one field built per
    column) cost more than printing a whole object. The copies are unbound, so no instance,
    request or context is ever shared between two serializers. A field that holds no other
    field is copied shallowly: binding sets only its own attributes (name, parent, source), so
    a shallow copy is as independent as DRF's deep one and costs a tenth (a fifth of printing
    one bid went to deep copies). A field holding fields (a list's child, a nested serializer)
    is copied deeply, as DRF does.
    """

    serializer_field_mapping = {**FIELD_MAPPING, models.DateTimeField: UtcDateTimeField}
    _unbound_fields: ClassVar[dict[str, tuple[serializers.Field, Copier]]]
    _columns: ClassVar[dict[str, str]]

    def get_fields(self) -> dict[str, serializers.Field]:
        cls = type(self)
        unbound = cls.__dict__.get("_unbound_fields")
        if unbound is None:
            # A subclass gets its own (its Meta differs); two threads at once build the same.
            fields = super().get_fields()
            cls._columns = _columns_printed(self.Meta.model, fields)
            unbound = {name: (field, _copier(field)) for name, field in fields.items()}
            cls._unbound_fields = unbound
        return {name: copier(field) for name, (field, copier) in unbound.items()}

    @cached_property
    def _readable_fields(self) -> list[serializers.Field]:
        # DRF walks the field mapping again for every object printed; a list's child serializer
        # prints every row with the same fields (about a tenth of printing a 50-row page).
        return [field for field in self.fields.values() if not field.write_only]

    @cached_property
    def _printers(self) -> list[tuple[str, str | None, serializers.Field]]:
        """Each readable field with the model column it prints as is, if any."""
        readable = self._readable_fields  # builds the class's columns on first use
        columns = type(self)._columns
        return [(str(f.field_name), columns.get(str(f.field_name)), f) for f in readable]

    def to_representation(self, instance: Any) -> Any:
        """DRF's printing, with a model column read straight off the row: DRF's general lookup
        (a mapping? a callable? a missing attribute?) cannot apply to a stored column's value,
        and cost more than printing the value (a fifth of printing a 50-row page)."""
        if isinstance(instance, models.Model):
            return self.print_object(instance)
        return super().to_representation(instance)

    def print_object(
        self, instance: Any, taken_from: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """`to_representation` of a model instance; `taken_from` names fields to read off
        another object that has the same columns (a bid's revision for its terms)."""
        ret: dict[str, Any] = {}
        for name, column, field in self._printers:
            source = instance if taken_from is None else taken_from.get(name, instance)
            if column is not None:
                value = getattr(source, column)
            else:
                try:
                    value = field.get_attribute(source)
                except SkipField:
                    continue
                if isinstance(value, PKOnlyObject) and value.pk is None:
                    value = None
            ret[name] = None if value is None else field.to_representation(value)
        return ret


def _columns_printed(
    model: type[models.Model], fields: dict[str, serializers.Field]
) -> dict[str, str]:
    """The fields that print a stored column as DRF's lookup would read it, each with its
    column: a plain source naming a column, read by DRF's own `get_attribute`."""
    columns = {f.attname for f in model._meta.concrete_fields if not f.is_relation}
    return {
        name: field.source or name
        for name, field in fields.items()
        if (field.source or name) in columns
        and type(field).get_attribute is serializers.Field.get_attribute
    }


def _copier(field: serializers.Field) -> Copier:
    """How a field is copied for each serializer: deeply if it holds fields, else shallowly."""
    if _holds_fields(field):
        return copy.deepcopy
    kind = type(field)
    copied_by_default = (
        kind.__new__ is serializers.Field.__new__
        and kind.__reduce_ex__ is object.__reduce_ex__
        and kind.__reduce__ is object.__reduce__
        and kind.__getstate__ is object.__getstate__
        and not hasattr(kind, "__copy__")
        and not hasattr(kind, "__setstate__")
        and kind not in copyreg.dispatch_table
        and not any("__slots__" in vars(base) for base in kind.__mro__)
    )
    return _copy_attributes if copied_by_default else copy.copy


def _copy_attributes(field: F) -> F:
    """`copy.copy` of a field that leaves copying to Python's default: a new object of the
    field's class holding the same attributes, without copy's general route through
    `__reduce_ex__` (which took two thirds of building a bid's 65 fields)."""
    new = object.__new__(type(field))
    new.__dict__.update(field.__dict__)
    return new


def _holds_fields(field: serializers.Field) -> bool:
    """Whether a field keeps other fields (a serializer, a list's or a dict's child, a
    many-related field's relation): those are bound to it, and copying must copy them."""
    if isinstance(field, serializers.BaseSerializer):
        return True
    for value in vars(field).values():
        values = value if isinstance(value, list | tuple) else (value,)
        if any(isinstance(v, serializers.Field) for v in values):
            return True
    return False


def username_field(field: str, *, allow_null: bool = True, **kwargs: Any) -> serializers.CharField:
    """A related person's username (`field` names the relation); null where nobody is named, or
    the person's account is gone."""
    return serializers.CharField(
        source=f"{field}.username", allow_null=allow_null, read_only=True, **kwargs
    )


def stated(field: F, schema: dict[str, Any]) -> F:
    """The schema states a rule that the service words itself, in a 400 naming the field: the
    serializer stays lenient so that the caller reads the service's sentence, not DRF's.
    `x-required` puts the field in its object's `required` (api.schema.ApiAutoSchema writes
    the schema as given, with the field's help text)."""
    # On a class of its own: DRF copies a declared field by calling its class again, which
    # would drop anything set on the instance.
    kind = type(f"Stated{type(field).__name__}", (type(field),), {"stated_schema": schema})
    field.__class__ = kind
    return field


def confirm_field(help_text: str) -> BooleanField:
    return stated(
        BooleanField(default=False, help_text=help_text),
        {"type": "boolean", "enum": [True], "x-required": True},
    )


def reason_field(help_text: str) -> serializers.CharField:
    """A reason the service requires in words: present and not blank."""
    return stated(
        serializers.CharField(allow_blank=True, help_text=help_text),
        {"type": "string", "minLength": 1, "pattern": r"\S", "x-required": True},
    )


class NamedFileField(serializers.FileField):
    """A file field whose "empty" error names the file (DRF's says only "The submitted file is
    empty."), in the pages' words (core.uploads.empty_file_message)."""

    def to_internal_value(self, data: Any) -> Any:
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as error:
            details = error.detail if isinstance(error.detail, list) else [error.detail]
            if not any(getattr(detail, "code", None) == "empty" for detail in details):
                raise
            raise serializers.ValidationError(
                empty_file_message(getattr(data, "name", None)), code="empty"
            ) from None


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "string", "format": "binary", "minLength": 1},
        "minItems": 1,
    }
)
class FileListField(serializers.ListField):
    """A repeated multipart file field: the API's side of the pages' `MultipleFileField`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=NamedFileField(), **kwargs)


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Field name (or `answers.<question key>`) → messages.",
    )


class ConfirmSerializer(serializers.Serializer):
    """The body of a move whose lifecycle table says it needs a confirmation."""

    confirm = confirm_field(
        "Must be true: it confirms the move; without it the move is refused: 400 naming `confirm`."
    )


class OrganizationSerializer(ReadModelSerializer[Organization]):
    class Meta:
        model = Organization
        fields = ["name", "slug", "kind"]
        read_only_fields = fields


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    organization = OrganizationSerializer(allow_null=True, help_text="The organisation acted for.")
    organizations = OrganizationSerializer(many=True)
