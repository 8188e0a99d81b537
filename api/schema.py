"""OpenAPI details drf-spectacular cannot guess: the shared error body on every operation,
and the evidence upload endpoint's shapes (its view lives in api/views/evidence.py)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiViewExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from api.idempotency import IDEMPOTENCY_PARAMETER
from api.serializers.common import FileListField
from api.serializers.evidence import CheckSerializer, EvidenceSerializer

ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "errors": {
            "type": "object",
            "description": "Field name (or `answers.<question key>`) → messages.",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail"],
}
ERRORS = {
    "400": "The input or a rule refused the call; `errors` names the fields.",
    "401": "No credentials, or an invalid or revoked token.",
    "403": "Signed in, but the call is not allowed (e.g. a missing CSRF token).",
    "404": "Not found, or not yours to see.",
    "422": "The Idempotency-Key was already used with a different body.",
    "409": "The object's state does not allow this move now (already decided, closed, sealed, "
    "or another one waits); `detail` says which and what would allow it.",
    "429": "Too many writes with this token; retry after the Retry-After seconds.",
    "503": "The task queue, or the rate limiter's store, is unreachable: what the call stored "
    "waits to be queued (the body says where); retry after the Retry-After seconds.",
}
WRITE_ONLY = {"400", "409", "422", "429", "503"}


class ApiAutoSchema(AutoSchema):
    """Only a GET lists: a write that answers several rows (inviting providers) answers them
    as a plain array, and takes no filter, ordering or page parameters. A list that may not
    be empty says so (`minItems`)."""

    def get_filter_backends(self) -> list[Any]:
        return super().get_filter_backends() if self.method == "GET" else []

    def _get_paginator(self) -> Any:
        return super()._get_paginator() if self.method == "GET" else None

    def _map_serializer_field(
        self, field: Any, direction: Any, bypass_extensions: bool = False
    ) -> Any:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            isinstance(field, serializers.ListField | serializers.MultipleChoiceField)
            and not field.allow_empty
            and schema.get("type") == "array"
        ):
            schema.setdefault("minItems", 1)
        return schema


# DRF reads "", "-" and "." as no number at all; drf-spectacular's pattern lets them through.
_DECIMAL = re.compile(r"^\^-\?\\d\{0,(\d+)\}(?:\(\?:\\\.\\d\{0,(\d+)\}\)\?)?\$$")


def _decimal_pattern(pattern: str) -> str:
    match = _DECIMAL.match(pattern)
    if match is None:
        return pattern
    whole, places = match.group(1), match.group(2)
    if not places or places == "0":
        return rf"^-?\d{{1,{whole}}}$"
    return rf"^-?(?:\d{{1,{whole}}}(?:\.\d{{0,{places}}})?|\.\d{{1,{places}}})$"


def _stated_rules(node: Any) -> None:
    """Walk the schema: decimals need a digit, and a property marked `x-required` (a rule the
    service words itself, e.g. `confirm` must be true) joins its object's `required`."""
    if isinstance(node, list):
        for item in node:
            _stated_rules(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("format") == "decimal" and isinstance(node.get("pattern"), str):
        node["pattern"] = _decimal_pattern(node["pattern"])
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            required = node.setdefault("required", [])
            if isinstance(prop, dict) and prop.pop("x-required", False) and name not in required:
                required.append(name)
        if not node["required"]:
            del node["required"]
    for value in node.values():
        _stated_rules(value)


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Document the shared error body on every operation that can answer with it."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    _stated_rules(result)
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            for code, text in ERRORS.items():
                if code in WRITE_ONLY and method == "get" and code != "400":
                    continue
                responses.setdefault(
                    code,
                    {"description": text, "content": {"application/json": {"schema": ERROR_REF}}},
                )
    return result


class UploadResultSerializer(serializers.Serializer):
    run = serializers.IntegerField(required=False)
    files = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Per file: the stored evidence (with `duplicate`) or `{name, error}`.",
    )
    detail = serializers.CharField(required=False)
    errors = serializers.DictField(required=False)  # type: ignore[assignment]


class EvidenceUploadSerializer(serializers.Serializer):
    file = FileListField(help_text="One or more files.")
    node = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="gpu-a01, gpu-a01+gpu-a02 for a subset run, empty for the whole allocation",
    )
    kind = serializers.CharField(
        required=False, allow_blank=True, help_text="The parser to use; detected when empty."
    )


class _RunRef(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    reservation = serializers.IntegerField()


class _Gate(serializers.Serializer):
    passed = serializers.BooleanField(allow_null=True)
    summary = serializers.CharField()


class RunEvidenceStateSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Evidence files matching the filters.")
    next = serializers.URLField(allow_null=True, help_text="The next page of files.")
    previous = serializers.URLField(allow_null=True)
    results = EvidenceSerializer(many=True, help_text="This page of the run's evidence files.")
    run = _RunRef()
    checks_state = serializers.CharField()
    checks_current = serializers.BooleanField()
    checks_error = serializers.CharField(allow_null=True)
    gate = _Gate(allow_null=True)
    checks = CheckSerializer(many=True)


PAGE_PARAMETERS = [
    OpenApiParameter(
        "page",
        {"type": "integer", "minimum": 1},
        description="A page number, from 1; past the last page is a 404.",
    ),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": 200},
        description="Results per page, 1 to 200 (50 when not given).",
    ),
]


class RunEvidenceViewSchema(OpenApiViewExtension):
    target_class = "api.views.evidence.RunEvidenceView"

    def view_replacement(self) -> Any:
        @extend_schema_view(
            get=extend_schema(
                operation_id="runs_evidence_retrieve",
                summary="Per-file parse state (paginated), the checks and the gate of a run",
                responses=RunEvidenceStateSerializer,
                parameters=PAGE_PARAMETERS,
                filters=True,
            ),
            post=extend_schema(
                operation_id="runs_evidence_upload",
                summary="Upload burn-in evidence (multipart field `file`, repeatable)",
                request={"multipart/form-data": EvidenceUploadSerializer},
                parameters=[IDEMPOTENCY_PARAMETER],
                responses={
                    201: UploadResultSerializer,
                    200: OpenApiResponse(UploadResultSerializer, "Every file was a duplicate."),
                    400: OpenApiResponse(
                        UploadResultSerializer,
                        "A file was refused (`errors.file`); `files` lists those stored anyway.",
                    ),
                },
            ),
        )
        class Fixed(self.target_class):  # type: ignore[name-defined]
            pass

        return Fixed


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <secret>`: create a token at /account/tokens/.",
        }
