"""Reservations after the award, their burn-in runs and the buyer's decision."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from acceptance.models import Acceptance, BurnInRun, Reservation


class AwardSerializer(serializers.Serializer):
    bid = serializers.IntegerField(min_value=1, help_text="The submitted bid that wins.")
    justification = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text=(
            "Why this bid wins: required (one full sentence at least) when the current scoring "
            "does not rank it first or disqualifies it."
        ),
    )


class RunSerializer(serializers.ModelSerializer[BurnInRun]):
    evidence_url = serializers.SerializerMethodField()

    class Meta:
        model = BurnInRun
        fields = [
            "id",
            "label",
            "created_at",
            "evidence_version",
            "checks_state",
            "checked_at",
            "gate_passed",
            "gate_summary",
            "evidence_url",
        ]
        read_only_fields = fields

    def get_evidence_url(self, obj: BurnInRun) -> str:
        return f"/api/v1/runs/{obj.pk}/evidence/"


class RunCreateSerializer(serializers.Serializer):
    label = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=120
    )


class DecisionSerializer(serializers.ModelSerializer[Acceptance]):
    by = serializers.CharField(source="by.username", allow_null=True, read_only=True)
    run = serializers.IntegerField(source="run_id", allow_null=True, read_only=True)

    class Meta:
        model = Acceptance
        fields = ["kind", "reason", "gate_passed", "gate_summary", "run", "by", "at"]
        read_only_fields = fields


class ReservationSerializer(serializers.ModelSerializer[Reservation]):
    request = serializers.IntegerField(source="request_id", read_only=True)
    bid = serializers.IntegerField(source="bid_id", read_only=True)
    provider = serializers.CharField(source="bid.provider.name", read_only=True)
    bid_revision = serializers.IntegerField(source="bid_revision.number", read_only=True)
    fixture_version = serializers.IntegerField(source="fixture_version.number", read_only=True)
    runs = RunSerializer(many=True, read_only=True)
    decision = serializers.SerializerMethodField()

    class Meta:
        model = Reservation
        fields = [
            "id",
            "request",
            "bid",
            "provider",
            "bid_revision",
            "fixture_version",
            "status",
            "awarded_at",
            "award_justification",
            "runs",
            "decision",
        ]
        read_only_fields = fields

    @extend_schema_field(DecisionSerializer(allow_null=True))
    def get_decision(self, obj: Reservation) -> dict | None:
        decision = getattr(obj, "decision", None)
        return dict(DecisionSerializer(decision).data) if decision is not None else None


class AcceptSerializer(serializers.Serializer):
    run = serializers.IntegerField(min_value=1, help_text="The burn-in run the decision rests on.")
    override_reason = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Required to accept a run whose gate has not passed (override).",
    )


class RejectSerializer(serializers.Serializer):
    reason = serializers.CharField(allow_blank=True, help_text="Why the reservation is rejected.")
