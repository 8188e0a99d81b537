"""OpenAPI details drf-spectacular cannot guess: the shared error body on every operation,
and the evidence upload endpoint's shapes (its view lives in api/views/evidence.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiViewExtension
from drf_spectacular.types import OpenApiTypes
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


def add_error_responses(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Document the shared error body on every operation that can answer with it."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
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
    OpenApiParameter("page", OpenApiTypes.INT, description="A page number within the results."),
    OpenApiParameter("page_size", OpenApiTypes.INT, description="Results per page (at most 200)."),
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
