"""Incidents as the API shows them: the record, its clocks, recovery checklist and evidence."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import NamedFileField, username_field
from incidents import selectors as sel
from incidents.models import (
    ChecklistSignoff,
    ClockBreach,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    SeverityChange,
)
from incidents.models import Severity as SeverityChoice
from incidents.models import Signal as SignalChoice

HAND_OPENED = ("alert", "drained-node", "slow-job", "other")


class IncidentSummarySerializer(serializers.ModelSerializer[Incident]):
    """One row of a reservation's incident list (no per-row checklist: that is the detail)."""

    reservation = serializers.IntegerField(source="reservation_id", read_only=True)
    failed_run = serializers.IntegerField(source="failed_run_id", allow_null=True, read_only=True)
    is_open = serializers.BooleanField(read_only=True)
    opened_by = username_field("opened_by")
    url = serializers.SerializerMethodField()
    suggested_owner = serializers.CharField(
        source="owner",
        read_only=True,
        help_text="`provider`, `customer` or `undetermined`: the handoff terms' words.",
    )

    class Meta:
        model = Incident
        fields = [
            "id",
            "reservation",
            "failed_run",
            "severity",
            "proposed_severity",
            "summary",
            "suggested_owner",
            "is_open",
            "opened_at",
            "opened_by",
            "responded_at",
            "restored_at",
            "closed_at",
            "url",
        ]
        read_only_fields = fields

    def get_url(self, obj: Incident) -> str:
        return reverse("api:incident-detail", args=[obj.pk])


class ClockSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="`response` or `restore`.")
    label = serializers.CharField()  # type: ignore[assignment]
    minutes = serializers.IntegerField(help_text="The terms' clock for this severity.")
    due = serializers.DateTimeField()
    seconds_left = serializers.SerializerMethodField(help_text="Negative once overdue.")
    breached = serializers.BooleanField()
    done_at = serializers.DateTimeField(allow_null=True)
    done_by = serializers.CharField(source="done_by.username", allow_null=True, default=None)

    def get_seconds_left(self, obj: dict[str, Any]) -> int:
        return int(obj["left"].total_seconds())


class ChecklistItemSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="Sign off with this key (signable items only).")
    text = serializers.CharField()
    evidence = serializers.CharField(allow_null=True, help_text="The evidence kind it reads.")
    status = serializers.CharField(help_text="pass | fail | waiting | signed")
    measured = serializers.CharField()
    expected = serializers.CharField()
    signable = serializers.BooleanField(help_text="Closed by a signed note, not by evidence.")
    passed = serializers.BooleanField()


class _LostRow(serializers.Serializer):
    label = serializers.CharField()  # type: ignore[assignment]
    gpu_hours = serializers.FloatField()


class LostTimeSerializer(serializers.Serializer):
    missing = serializers.ListField(child=serializers.CharField(), help_text="Marks still empty.")
    rows = _LostRow(many=True, allow_null=True)
    total = serializers.FloatField(required=False, allow_null=True)
    error = serializers.CharField(required=False)
    checkpoint_source = serializers.CharField(
        required=False,
        help_text="Empty when the last checkpoint time is recorded; else how it was estimated "
        "(the checkpoint listing's steps × the step time, or half the buyer's interval).",
    )


class SeverityChangeSerializer(serializers.ModelSerializer[SeverityChange]):
    proposed_by = username_field("proposed_by")
    decided_by = username_field("decided_by")

    class Meta:
        model = SeverityChange
        fields = [
            "id", "from_severity", "to_severity", "reason", "status", "proposed_party",
            "proposed_by", "proposed_at", "decided_party", "decided_by", "decided_at",
            "decision_reason",
        ]  # fmt: skip
        read_only_fields = fields


class ClockBreachSerializer(serializers.ModelSerializer[ClockBreach]):
    class Meta:
        model = ClockBreach
        fields = ["clock", "severity", "minutes", "due_at", "recorded_at"]
        read_only_fields = fields


class IncidentSerializer(IncidentSummarySerializer):
    responded_by = username_field("responded_by")
    restored_by = username_field("restored_by")
    closed_by = username_field("closed_by")
    clocks = serializers.SerializerMethodField()
    checklist = serializers.SerializerMethodField()
    lost_time = serializers.SerializerMethodField()
    evidence_url = serializers.SerializerMethodField()
    severity_changes = serializers.SerializerMethodField()
    severity_history = serializers.SerializerMethodField()
    breaches = serializers.SerializerMethodField()
    standing = serializers.SerializerMethodField()
    acknowledged_by = username_field("acknowledged_by")
    disputed_by = username_field("disputed_by")

    class Meta(IncidentSummarySerializer.Meta):
        fields = [
            *IncidentSummarySerializer.Meta.fields,
            "severity_reason",
            "owner_reasons",
            "terms_source",
            "responded_by",
            "restored_by",
            "closed_by",
            "gpus",
            "failed_at",
            "last_checkpoint_at",
            "revalidated_at",
            "restarted_at",
            "clocks",
            "checklist",
            "lost_time",
            "evidence_url",
            "signal",
            "opened_by_party",
            "nodes",
            "window_start",
            "window_end",
            "fewer_nodes_at",
            "continuing_nodes",
            "severity_changes",
            "severity_history",
            "breaches",
            "standing",
            "acknowledged_at",
            "acknowledged_by",
            "disputed_at",
            "disputed_by",
            "dispute_reason",
        ]
        read_only_fields = fields

    @extend_schema_field(SeverityChangeSerializer(many=True))
    def get_severity_changes(self, obj: Incident) -> list[Any]:
        rows = sel.severity_changes(incident=obj)
        return list(SeverityChangeSerializer(rows, many=True).data)

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_severity_history(self, obj: Incident) -> list[str]:
        return [line["text"] for line in sel.severity_history(obj)]

    @extend_schema_field(ClockBreachSerializer(many=True))
    def get_breaches(self, obj: Incident) -> list[Any]:
        return list(ClockBreachSerializer(sel.breaches_list(incident=obj), many=True).data)

    @extend_schema_field(
        serializers.ChoiceField(choices=["acknowledged", "unanswered", "awaiting", "disputed"])
    )
    def get_standing(self, obj: Incident) -> str:
        return sel.incident_standing(obj, now=timezone.now())

    @extend_schema_field(ClockSerializer(many=True))
    def get_clocks(self, obj: Incident) -> list[Any]:
        rows = sel.clock_rows(obj, now=timezone.now())
        return list(ClockSerializer(rows, many=True).data)

    @extend_schema_field(ChecklistItemSerializer(many=True))
    def get_checklist(self, obj: Incident) -> list[Any]:
        return list(ChecklistItemSerializer(sel.checklist_states(obj), many=True).data)

    @extend_schema_field(LostTimeSerializer)
    def get_lost_time(self, obj: Incident) -> dict[str, Any]:
        return dict(LostTimeSerializer(sel.lost_time(obj)).data)

    def get_evidence_url(self, obj: Incident) -> str:
        return reverse("api:incident-evidence", args=[obj.pk])


class IncidentSignalOpenSerializer(serializers.Serializer):
    """Open an incident from the party's own signal (rules in incidents.services.opening)."""

    severity = serializers.ChoiceField(choices=SeverityChoice.choices)
    signal = serializers.ChoiceField(
        choices=[s for s in SignalChoice.choices if s[0] in HAND_OPENED],
        help_text="The provider: alert, drained-node or other; the buyer: slow-job or other.",
    )
    nodes = serializers.ListField(
        child=serializers.CharField(max_length=100), max_length=256, help_text="Node labels."
    )
    window_start = serializers.DateTimeField(help_text="When it began (UTC), not in the future.")
    window_end = serializers.DateTimeField(
        required=False, allow_null=True, help_text="Empty while it lasts."
    )
    summary = serializers.CharField(max_length=2000, help_text="What was seen.")


class IncidentOpenSerializer(serializers.Serializer):
    severity = serializers.ChoiceField(
        choices=SeverityChoice.choices,
        required=False,
        allow_blank=True,
        help_text="Empty: the severity the analysis proposes.",
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Needed only when the severity differs from the proposed one.",
    )


class SeveritySerializer(serializers.Serializer):
    severity = serializers.ChoiceField(choices=SeverityChoice.choices)
    reason = serializers.CharField(
        max_length=2000, help_text="Why the severity should change; it is on the record."
    )


class SeverityAcceptSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Optional note."
    )


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text="Why; it is on the record.")


class IncidentTimesSerializer(serializers.Serializer):
    """Lost-time marks (UTC) and the GPU count; only the fields sent change, null empties one."""

    gpus = serializers.IntegerField(min_value=1, max_value=1_000_000, allow_null=True)
    failed_at = serializers.DateTimeField(allow_null=True)
    last_checkpoint_at = serializers.DateTimeField(allow_null=True)
    revalidated_at = serializers.DateTimeField(allow_null=True)
    restarted_at = serializers.DateTimeField(allow_null=True)


class IncidentEvidenceSerializer(serializers.ModelSerializer[IncidentEvidence]):
    name = serializers.CharField(source="original_name", read_only=True)
    uploaded_by = username_field("uploaded_by")
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = IncidentEvidence
        fields = [
            "id",
            "kind",
            "name",
            "size",
            "sha256",
            "ok",
            "error",
            "parsed",
            "uploaded_at",
            "uploaded_by",
            "download_url",
        ]
        read_only_fields = fields

    def get_download_url(self, obj: IncidentEvidence) -> str:
        return reverse("incidents:incident-evidence-download", args=[obj.pk])


class IncidentEvidenceUploadSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=IncidentEvidenceKind.choices, help_text="What the file is."
    )
    file = NamedFileField()
    node = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=120,
        help_text="For diagnostics: the node they ran on, one of the reservation's nodes (or "
        "the incident's). Left out, a repaired node named in the file name counts; the "
        "checklist takes diagnostics only from the repaired node(s).",
    )


class SignoffWriteSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="A signable checklist item's key.")
    note = serializers.CharField(help_text="What was checked; the note is the evidence.")


class SignoffSerializer(serializers.ModelSerializer[ChecklistSignoff]):
    by = serializers.CharField(source="by.username", read_only=True)

    class Meta:
        model = ChecklistSignoff
        fields = ["key", "note", "by", "at"]
        read_only_fields = fields
