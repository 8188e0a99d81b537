"""Planned changes with their release canaries as the API shows them: the change, the canary's
verdict and its checks beside the accepted burn-in's; the buyer's answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import ReadModelSerializer
from delivery.models import ChangeKind, PlannedChange


class CanaryComparisonSerializer(serializers.Serializer):
    name = serializers.CharField()
    before_status = serializers.CharField(help_text="The accepted burn-in's status; '' if none.")
    before = serializers.CharField(help_text="What the accepted burn-in measured.")
    after_status = serializers.CharField()
    after = serializers.CharField(help_text="What the canary measured.")
    expected = serializers.CharField()


class PlannedChangeSerializer(ReadModelSerializer[PlannedChange]):
    state = serializers.SerializerMethodField()
    window_starts_at = serializers.DateTimeField(source="window.starts_at", read_only=True)
    window_ends_at = serializers.DateTimeField(source="window.ends_at", read_only=True)
    canary_nodes = serializers.ListField(
        source="canary.nodes", child=serializers.CharField(), read_only=True
    )
    canary_run = serializers.SerializerMethodField()
    verdict = serializers.SerializerMethodField()
    gate_summary = serializers.SerializerMethodField()
    change_log_status = serializers.CharField(source="entry.status", read_only=True)
    objection = serializers.CharField(source="entry.decision_note", read_only=True)
    comparison = serializers.SerializerMethodField()

    class Meta:
        model = PlannedChange
        fields = [
            "id", "reservation", "kind", "component", "from_version", "to_version", "nodes",
            "description", "window", "window_starts_at", "window_ends_at", "announced_at",
            "notice_hours", "state", "canary_nodes", "canary_run", "verdict", "gate_summary",
            "change_log_status", "objection", "comparison", "opened_at", "canary_passed",
            "unguarded", "outcome",
        ]  # fmt: skip

    def _view(self, obj: PlannedChange) -> Any:
        return self.context["views"][obj.pk]

    def get_state(self, obj: PlannedChange) -> str:
        return str(self._view(obj).state)

    @extend_schema_field(OpenApiTypes.INT)
    def get_canary_run(self, obj: PlannedChange) -> int:
        """The canary's run: its evidence is read and uploaded at /changes/{id}/canary/evidence/."""
        return int(self._view(obj).run.pk)

    def get_verdict(self, obj: PlannedChange) -> str:
        """waiting (no evidence), checking, passed or failed."""
        return str(self._view(obj).verdict)

    def get_gate_summary(self, obj: PlannedChange) -> str:
        run = self._view(obj).run
        return str(run.gate_summary) if run.checks_current else ""

    @extend_schema_field(CanaryComparisonSerializer(many=True))
    def get_comparison(self, obj: PlannedChange) -> list[dict[str, Any]]:
        return CanaryComparisonSerializer(self._view(obj).comparison, many=True).data  # type: ignore[return-value]


class ChangeAnswerSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["accept", "object"])
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=2000,
        help_text="Why the buyer objects (required to object).",
    )  # fmt: skip


class ChangeAnnounceSerializer(serializers.Serializer[Any]):
    window = serializers.IntegerField(
        help_text="The id of one of the reservation's maintenance windows, agreed or given with "
        "the terms' notice and not yet open (GET /reservations/{id}/maintenance/)."
    )
    kind = serializers.ChoiceField(choices=ChangeKind.choices)
    component = serializers.CharField(max_length=120, help_text="What changes, e.g. NVIDIA driver.")
    from_version = serializers.CharField(max_length=120, help_text="The version running now.")
    to_version = serializers.CharField(max_length=120, help_text="The version after the change.")
    nodes = serializers.ListField(
        child=serializers.CharField(max_length=63), required=False, default=list, max_length=4096,
        help_text="Node labels the change reaches; empty or absent: the window's nodes.",
    )  # fmt: skip
    canary_nodes = serializers.ListField(
        child=serializers.CharField(max_length=63), allow_empty=False, max_length=4096,
        help_text="Where the canary runs first: at least one node, fewer than the change reaches.",
    )  # fmt: skip
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=2000, help_text="Why."
    )
