"""Failed-run bundles sent from a cluster, their state and the stored analysis."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import FileListField, NamedFileField
from engine import failures
from incidents.models import FailedRun, FailedRunFile
from incidents.selectors import failure_record_gaps


class FailedRunFileSerializer(serializers.ModelSerializer[FailedRunFile]):
    class Meta:
        model = FailedRunFile
        fields = ["id", "original_name", "size", "sha256", "is_rank_map"]
        read_only_fields = fields


class RecordGapSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The failure record's key (docs/fixture-schema.md).")
    label = serializers.CharField()  # type: ignore[assignment]
    detail = serializers.CharField(help_text="What is missing, in words.")


class FailedRunSerializer(serializers.ModelSerializer[FailedRun]):
    files = FailedRunFileSerializer(many=True, read_only=True)
    analysis = serializers.SerializerMethodField()
    incident = serializers.SerializerMethodField()
    record_missing = serializers.SerializerMethodField(
        help_text="What the fixture's failure record asks the upload to hold and it lacks "
        "(`key`, `label`, `detail`), once analysed; the analysis runs either way."
    )

    class Meta:
        model = FailedRun
        fields = [
            "id",
            "reservation",
            "label",
            "world_size",
            "state",
            "error",
            "attempts",
            "uploaded_at",
            "analysed_at",
            "files",
            "incident",
            "record_missing",
            "analysis",
        ]
        read_only_fields = fields

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "additionalProperties": True,
            "description": "`analyze_failure --json` output once the state is analysed: "
            "first_failure, secondary_ranks, missing_ranks, mismatches, suggested_owner "
            "(provider, customer or undetermined), reasons, candidates, timeline; for a job "
            "torchrun restarted, attempt, restarts and the other attempts' first failures "
            "(attempts).",
        }
    )
    def get_analysis(self, obj: FailedRun) -> dict[str, Any] | None:
        if not isinstance(obj.analysis, dict):
            return None
        return failures.view(obj.analysis, first=self.context.get("first", "ending"))

    @extend_schema_field(RecordGapSerializer(many=True))
    def get_record_missing(self, obj: FailedRun) -> list[dict[str, str]]:
        return failure_record_gaps(obj)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_incident(self, obj: FailedRun) -> int | None:
        incident = getattr(obj, "incident", None)
        return incident.pk if incident is not None else None


class FailedRunUploadSerializer(serializers.Serializer):
    """The multipart form (for the schema); the view reads repeated `file` fields itself."""

    file = FileListField(
        help_text="An archive (.tar.gz/.tgz/.tar/.zip) or the logs and dumps; repeat the field.",
    )
    rank_map = NamedFileField(
        required=False, help_text="CSV `rank,node[,local_rank,pci_bus_id]` or JSON."
    )
    world_size = serializers.IntegerField(
        required=False, min_value=1, max_value=failures.MAX_WORLD_SIZE
    )
    label = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=120
    )


class FailedRunFieldsSerializer(serializers.Serializer):
    """The non-file fields, validated."""

    world_size = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=failures.MAX_WORLD_SIZE
    )
    label = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=120
    )
