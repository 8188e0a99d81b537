"""Served-responses files and their figures against the offer's inference promise, as the API
shows them: inference.selectors and engine.inference decide, these only print."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import NamedFileField, ReadModelSerializer
from inference.models import ServedResponsesFile

OUTCOME_SCHEMA = {
    "type": "object",
    "nullable": True,
    "additionalProperties": True,
    "description": "Once read: requests, completed, failed, within_promise, output_tokens, "
    "duration_s, concurrency, per_token, ttft_p50_ms, ttft_p95_ms, itl_p50_ms, itl_p95_ms, "
    "throughput_tokens_per_s, cost_usd, cost_per_response, cost_per_response_within, "
    "cost_per_million_tokens (money as decimal strings), rows (key, label, unit, promised, "
    "observed, better, met: each figure against the promise) and notes.",
}


class ServedFileSerializer(ReadModelSerializer[ServedResponsesFile]):
    name = serializers.CharField(source="original_name", read_only=True)
    uploaded_by = serializers.CharField(
        source="uploaded_by.username", allow_null=True, read_only=True
    )
    kind = serializers.CharField(
        read_only=True, help_text="What the file was read as: vllm_bench or request_log."
    )
    error_line = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="The line of the file the error is on."
    )
    outcome = serializers.SerializerMethodField()

    class Meta:
        model = ServedResponsesFile
        fields = [
            "id", "reservation", "name", "label", "kind", "party", "size", "sha256", "state",
            "error", "error_line", "attempts", "uploaded_at", "uploaded_by", "outcome",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(OUTCOME_SCHEMA)
    def get_outcome(self, obj: ServedResponsesFile) -> dict[str, Any] | None:
        return obj.outcome


class ServedUploadWriteSerializer(serializers.Serializer):
    file = NamedFileField(
        allow_empty_file=True,
        help_text="vLLM's serving benchmark result (JSON, saved with --save-detailed) or a "
        "per-request log (CSV or JSON lines: request_id, start, first_token, end, "
        "output_tokens, status).",
    )
    label = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, default="",
        help_text="What was served, e.g. 'chat traffic, concurrency 64' (120 characters).",
    )  # fmt: skip


class PromiseSerializer(serializers.Serializer):
    concurrency = serializers.IntegerField(allow_null=True)
    ttft_p50_ms = serializers.FloatField(allow_null=True)
    ttft_p95_ms = serializers.FloatField(allow_null=True)
    itl_p50_ms = serializers.FloatField(allow_null=True)
    itl_p95_ms = serializers.FloatField(allow_null=True)
    throughput_tokens_per_s = serializers.FloatField(allow_null=True)
    cost_per_million_tokens = serializers.DecimalField(
        max_digits=14, decimal_places=2, allow_null=True
    )


class InferenceFiguresSerializer(serializers.Serializer):
    """The offer's promise, and the latest read file's figures against it."""

    reservation = serializers.IntegerField()
    promises_inference = serializers.BooleanField(
        help_text="False: the awarded offer promises no inference figure."
    )
    promise = PromiseSerializer()
    files = serializers.DictField(child=serializers.IntegerField(), help_text="Files by state.")
    latest = ServedFileSerializer(
        allow_null=True, help_text="The newest file that was read; null until one is."
    )
