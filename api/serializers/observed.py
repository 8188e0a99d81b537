"""Observed files (scheduler records, node snapshots, result files) and the figures worked from
them, as the API shows them: observed.selectors decides, these only print."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import (
    DecimalField,
    NamedFileField,
    ReadModelSerializer,
    UtcDateTimeField,
)
from observed.models import ObservedKind, ObservedUpload, ResultUnit
from observed.selectors import ObservedReport, Packet


def _minutes(**kwargs: Any) -> serializers.DecimalField:
    return serializers.DecimalField(max_digits=20, decimal_places=2, allow_null=True, **kwargs)


class ObservedUploadSerializer(ReadModelSerializer[ObservedUpload]):
    name = serializers.CharField(source="original_name", read_only=True)
    uploaded_by = serializers.CharField(
        source="uploaded_by.username", allow_null=True, read_only=True
    )
    error_line = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="The line of the file the error is on."
    )
    error_field = serializers.CharField(
        read_only=True, help_text="The field, column or key the error is about ('' if none)."
    )
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = ObservedUpload
        fields = [
            "id", "reservation", "name", "kind", "party", "size", "sha256", "state", "error",
            "error_line", "error_field", "attempts", "uploaded_at", "uploaded_by", "parsed_at",
            "download_url",
        ]  # fmt: skip
        read_only_fields = fields

    def get_download_url(self, obj: ObservedUpload) -> str:
        return reverse("observed:file", args=[obj.pk])


class ObservedUploadWriteSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=ObservedKind.choices,
        help_text="What the file is (docs/observed-outcomes.md).",
        error_messages={
            "invalid_choice": '"{input}" is not a kind of observed file; send one of: '
            + ", ".join(f"{value} ({label})" for value, label in ObservedKind.choices)
            + "."
        },
    )
    # The service refuses an empty file naming it, as the page does.
    file = NamedFileField(allow_empty_file=True, help_text="The file as the tool wrote it.")


class ResultSerializer(serializers.Serializer):
    """The result the buyer pays for, and how many it expected per GPU-hour (the prediction)."""

    unit = serializers.ChoiceField(
        choices=ResultUnit.choices,
        help_text="step: accepted training step; token: million trained tokens; run: "
        "completed run.",
    )
    expected_per_gpu_hour = DecimalField(
        max_digits=12,
        decimal_places=4,
        min_value=Decimal("0.0001"),
        required=False,
        allow_null=True,
        default=None,
        help_text="Results expected per GPU-hour; null: no prediction.",
    )


class DaySerializer(serializers.Serializer):
    day = serializers.DateField()
    hours = _minutes(help_text="The day's hours inside the term.")
    contracted = _minutes(help_text="GPUs, averaged over the day's hours (all four).")
    allocatable = _minutes()
    healthy = _minutes()
    in_use = _minutes()
    in_use_gpu_hours = _minutes()


class ReceiptSerializer(serializers.Serializer):
    job = serializers.CharField()
    gpus = serializers.IntegerField()
    submitted = UtcDateTimeField()
    admitted = UtcDateTimeField(allow_null=True)
    started = UtcDateTimeField(allow_null=True)
    queued_minutes = _minutes()
    to_running_minutes = _minutes()
    within_p95 = serializers.BooleanField(
        allow_null=True, help_text="null: no promise, or not running yet."
    )
    source = serializers.CharField(  # type: ignore[assignment]
        help_text="The file the job's record is in."
    )
    line = serializers.IntegerField()


class ReceiptsSerializer(serializers.Serializer):
    promised_p50 = serializers.IntegerField(allow_null=True, help_text="Minutes.")
    promised_p95 = serializers.IntegerField(allow_null=True, help_text="Minutes.")
    observed_p50 = _minutes()
    observed_p95 = _minutes()
    rows = ReceiptSerializer(many=True)


class ReclaimSerializer(serializers.Serializer):
    job = serializers.CharField(source="reclaim.job")
    at = UtcDateTimeField(source="reclaim.at")
    gpus = serializers.IntegerField(source="reclaim.gpus")
    reason = serializers.CharField(source="reclaim.reason")
    requeued = serializers.BooleanField(source="reclaim.requeued")
    running_again_at = UtcDateTimeField(source="reclaim.running_again_at", allow_null=True)
    back_minutes = _minutes()
    misses = serializers.ListField(
        child=serializers.CharField(), help_text="What the reclaim did against the terms."
    )
    source = serializers.CharField(source="reclaim.source")  # type: ignore[assignment]
    line = serializers.IntegerField(source="reclaim.line")


class RecordSerializer(serializers.Serializer):
    at = UtcDateTimeField()
    subject = serializers.CharField()
    what = serializers.CharField()
    detail = serializers.CharField(allow_blank=True)
    source = serializers.CharField()  # type: ignore[assignment]
    line = serializers.IntegerField()


class NodeStateSerializer(serializers.Serializer):
    at = UtcDateTimeField()
    node = serializers.CharField()
    allocatable = serializers.BooleanField()
    healthy = serializers.BooleanField()
    why = serializers.CharField(allow_blank=True)


class PacketSerializer(serializers.Serializer):
    """A missed promise with its diagnostic packet."""

    promise = serializers.CharField(source="miss.promise")
    promised = serializers.CharField(source="miss.promised")
    observed = serializers.CharField(source="miss.observed")
    start = UtcDateTimeField(source="miss.start")
    end = UtcDateTimeField(source="miss.end")
    jobs = serializers.ListField(child=serializers.CharField(), source="miss.jobs")
    nodes = serializers.ListField(child=serializers.CharField(), source="miss.nodes")
    records = RecordSerializer(many=True, source="miss.records")
    node_states = serializers.SerializerMethodField()
    incidents = serializers.SerializerMethodField()
    bills = serializers.ListField(child=serializers.DictField(child=serializers.CharField()))
    changes = serializers.ListField(
        child=serializers.DictField(child=serializers.CharField()),
        help_text="Planned changes whose window overlaps the miss: id, change, nodes, window, "
        "canary (its verdict and nodes), rollout (not yet, after a passing canary, without a "
        "passing canary) and outcome.",
    )

    @extend_schema_field(NodeStateSerializer(many=True))
    def get_node_states(self, obj: Packet) -> list[dict[str, Any]]:
        rows = [{"at": at, **vars_of(n)} for at, n in obj.miss.node_states]
        return NodeStateSerializer(rows, many=True).data  # type: ignore[return-value]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_incidents(self, obj: Packet) -> list[int]:
        return [i.pk for i in obj.incidents]


def vars_of(state: Any) -> dict[str, Any]:
    return {"node": state.node, "allocatable": state.allocatable, "healthy": state.healthy,
            "why": state.why}  # fmt: skip


class CostSerializer(serializers.Serializer):
    unit = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    accepted = serializers.IntegerField(source="count.accepted")
    replayed = serializers.IntegerField(source="count.replayed")
    rejected = serializers.IntegerField(source="count.rejected")
    cost = serializers.DecimalField(max_digits=20, decimal_places=4, allow_null=True,
                                    help_text="USD per result, after credits.")  # fmt: skip
    working = serializers.CharField(allow_blank=True)
    predicted = serializers.DecimalField(max_digits=20, decimal_places=4, allow_null=True)
    predicted_working = serializers.CharField(allow_blank=True)
    reasons = serializers.ListField(child=serializers.CharField())


class EnvelopeSerializer(serializers.Serializer):
    start_p50_minutes = serializers.IntegerField(allow_null=True)
    start_p95_minutes = serializers.IntegerField(allow_null=True)
    idle_capacity_lent = serializers.BooleanField(allow_null=True)
    preemptible = serializers.BooleanField(allow_null=True)
    reclaim_notice_minutes = serializers.IntegerField(allow_null=True)
    reclaim_effect = serializers.CharField(allow_blank=True)
    health_check_minutes = serializers.IntegerField(allow_null=True)


class ObservedFiguresSerializer(serializers.Serializer):
    """What the Observed page shows, as data: empty lists until the term has started."""

    reservation = serializers.IntegerField(source="reservation.pk")
    period = serializers.CharField(allow_blank=True, help_text="'' for the term to date.")
    start = UtcDateTimeField(allow_null=True)
    end = UtcDateTimeField(allow_null=True)
    envelope = EnvelopeSerializer()
    days = serializers.SerializerMethodField()
    receipts = serializers.SerializerMethodField()
    reclaims = serializers.SerializerMethodField()
    misses = PacketSerializer(many=True, source="packets")
    cost = CostSerializer(allow_null=True, help_text="null until the buyer names the result.")
    paid_working = serializers.CharField(allow_blank=True)
    files = serializers.DictField(
        child=serializers.IntegerField(), source="counts", help_text="Files by state."
    )
    notes = serializers.SerializerMethodField()

    @extend_schema_field(DaySerializer(many=True))
    def get_days(self, obj: ObservedReport) -> Any:
        return DaySerializer(obj.observed.days if obj.observed else [], many=True).data

    @extend_schema_field(ReceiptsSerializer(allow_null=True))
    def get_receipts(self, obj: ObservedReport) -> Any:
        return ReceiptsSerializer(obj.observed.receipts).data if obj.observed else None

    @extend_schema_field(ReclaimSerializer(many=True))
    def get_reclaims(self, obj: ObservedReport) -> Any:
        return ReclaimSerializer(obj.observed.reclaims if obj.observed else [], many=True).data

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_notes(self, obj: ObservedReport) -> list[str]:
        return list(obj.observed.notes) if obj.observed else []
