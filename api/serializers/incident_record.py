"""The incident record's moves by API, in the page's words: an S2 opened from step times, the
restart on fewer nodes, the change log, the repair estimate and sign-off disputes. Kinds, cause
classes and confidences are plain strings: the services name a value they do not know."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers.common import NamedFileField, stated, username_field
from incidents.models import ChangeLogEntry, ChecklistDispute, RepairEstimate
from incidents.models.record import CauseClass, ChangeKind, Confidence


class StepTimesUploadSerializer(serializers.Serializer):
    # Empty files pass here so that the service names them, as on the page.
    file = NamedFileField(
        allow_empty_file=True,
        help_text="Per-rank step times: CSV rank,node,step,seconds,timestamp (the burn-in "
        "format) or time,step,step_seconds[,rank] (a training log).",
    )
    rank_map = NamedFileField(
        required=False,
        allow_empty_file=True,
        help_text="Optional CSV rank,node or JSON, when the file has no node column.",
    )
    nodes = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=4000,
        help_text="Affected nodes (commas or spaces between them); empty: the slowest ranks'.",
    )
    summary = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class StepTimesResultSerializer(serializers.Serializer):
    opened = serializers.BooleanField(help_text="True when a sustained rise opened an S2.")
    incident = serializers.IntegerField(allow_null=True, help_text="The S2's id, if opened.")
    message = serializers.CharField(help_text="What the step times show, in words.")
    found = serializers.JSONField(help_text="The judgement: baseline, threshold, slow ranks.")


class FewerNodesSerializer(serializers.Serializer):
    at = serializers.DateTimeField(help_text="When the job restarted on fewer nodes (UTC).")
    continuing_nodes = serializers.IntegerField(
        min_value=1, max_value=100_000, help_text="Nodes the job runs on now."
    )


class ChangeLogEntrySerializer(serializers.ModelSerializer[ChangeLogEntry]):
    proposed_by = username_field("proposed_by")
    decided_by = username_field("decided_by")
    applied_by = username_field("applied_by")
    evidence = serializers.SerializerMethodField(help_text="Recovery evidence ids it cites.")

    class Meta:
        model = ChangeLogEntry
        fields = [
            "id",
            "kind",
            "what",
            "status",
            "proposed_party",
            "proposed_by",
            "proposed_at",
            "decided_party",
            "decided_by",
            "decided_at",
            "decision_note",
            "applied_by",
            "applied_at",
            "checks_rerun",
            "evidence",
        ]
        read_only_fields = fields

    def get_evidence(self, obj: ChangeLogEntry) -> list[int]:
        return sorted(e.pk for e in obj.evidence.all())


class _EvidenceIds(serializers.Serializer):
    evidence = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        default=list,
        help_text="Ids of this incident's recovery evidence that show the checks.",
    )
    checks_rerun = serializers.CharField(required=False, allow_blank=True, default="")


class ChangeProposeSerializer(_EvidenceIds):
    kind = stated(
        serializers.CharField(help_text="`config` (configuration change) or `workaround`."),
        {"type": "string", "enum": list(ChangeKind.values), "x-required": True},
    )
    what = stated(
        serializers.CharField(
            allow_blank=True, help_text="What changes (the setting, the node, before and after)."
        ),
        {"type": "string", "minLength": 1, "pattern": r"\S", "x-required": True},
    )


class ChangeDecideSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["approve", "decline"])
    note = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=2000,
        help_text="Required to decline.",
    )


class ChangeApplySerializer(_EvidenceIds):
    pass


class RepairEstimateSerializer(serializers.ModelSerializer[RepairEstimate]):
    posted_by = username_field("posted_by")

    class Meta:
        model = RepairEstimate
        fields = [
            "revision",
            "cause_class",
            "parts",
            "eta",
            "confidence",
            "note",
            "posted_by",
            "posted_at",
        ]
        read_only_fields = fields


class EstimateWriteSerializer(serializers.Serializer):
    # Lenient here so that the service names a wrong class or confidence in its own words.
    cause_class = stated(
        serializers.CharField(
            allow_blank=True,
            help_text="gpu, nvlink, nic, fabric, host, storage, software, facility or unknown.",
        ),
        {"type": "string", "enum": list(CauseClass.values), "x-required": True},
    )
    eta = stated(
        serializers.DateTimeField(allow_null=True, help_text="UTC; not in the past."),
        {"type": "string", "format": "date-time", "x-required": True},
    )
    confidence = stated(
        serializers.CharField(allow_blank=True, help_text="low, medium or high."),
        {"type": "string", "enum": list(Confidence.values), "x-required": True},
    )
    parts = serializers.ListField(
        child=serializers.CharField(allow_blank=True), required=False, default=list
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")


class SignoffDisputeWriteSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The signed-off checklist item's key.")
    reason = serializers.CharField(
        allow_blank=True, max_length=2000, help_text="What is not so; it is on the record."
    )


class SignoffDisputeSerializer(serializers.ModelSerializer[ChecklistDispute]):
    by = serializers.CharField(source="by.username", read_only=True)

    class Meta:
        model = ChecklistDispute
        fields = ["id", "key", "disputed_note", "disputed_by_party", "reason", "party", "by", "at"]
        read_only_fields = fields


def step_times_result(row: Any) -> dict[str, Any]:
    found = row.result or {}
    return {
        "opened": row.incident_id is not None,
        "incident": row.incident_id,
        "message": str(found.get("message", "")),
        "found": found,
    }
