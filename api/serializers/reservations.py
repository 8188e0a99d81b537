"""Reservations after the award, their burn-in runs and the buyer's decision."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from acceptance.lifecycle import pending_override
from acceptance.models import Acceptance, BurnInRun, OverrideRequest, Reservation
from api.serializers.common import BooleanField, confirm_field, reason_field


class AwardSerializer(serializers.Serializer):
    bid = serializers.IntegerField(min_value=1, help_text="The submitted bid that wins.")
    justification = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text=(
            "Why this bid wins: required (one full sentence at least) when the current scoring "
            "does not rank it first or disqualifies it (or, with `view`, when that view does "
            "not rank it first)."
        ),
    )
    view = serializers.CharField(
        required=False,
        default="request",
        help_text=(
            "The ranking the award follows, recorded with it: request (the request's weights), "
            "consensus (the team's), or evaluator:<user id> (see GET /requests/{id}/team/)."
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


class WaivedCheckSerializer(serializers.Serializer):
    code = serializers.CharField()
    title = serializers.CharField()
    status = serializers.CharField()
    measured = serializers.CharField(allow_blank=True)
    expected = serializers.CharField(allow_blank=True)


class OverrideSerializer(serializers.ModelSerializer[OverrideRequest]):
    run = serializers.IntegerField(source="run_id", read_only=True)
    waived = WaivedCheckSerializer(many=True, read_only=True)
    requested_by = serializers.CharField(
        source="requested_by.username", allow_null=True, read_only=True
    )
    decided_by = serializers.CharField(
        source="decided_by.username", allow_null=True, read_only=True, default=None
    )

    class Meta:
        model = OverrideRequest
        fields = [
            "id",
            "run",
            "reason",
            "waived",
            "gate_summary",
            "baseline_from_run",
            "requested_by",
            "requested_at",
            "outcome",
            "decided_by",
            "decided_at",
            "decline_reason",
        ]
        read_only_fields = fields


class DecisionSerializer(serializers.ModelSerializer[Acceptance]):
    by = serializers.CharField(source="by.username", allow_null=True, read_only=True)
    run = serializers.IntegerField(source="run_id", allow_null=True, read_only=True)
    requested_by = serializers.CharField(
        source="override.requested_by.username",
        allow_null=True,
        read_only=True,
        default=None,
        help_text="An override's requester; `by` is its approver. Null otherwise.",
    )
    waived = serializers.SerializerMethodField(
        help_text="An override's waived blocking checks, frozen when it was asked for."
    )

    class Meta:
        model = Acceptance
        fields = [
            "kind",
            "reason",
            "gate_passed",
            "gate_summary",
            "run",
            "by",
            "at",
            "requested_by",
            "waived",
        ]
        read_only_fields = fields

    @extend_schema_field(WaivedCheckSerializer(many=True, allow_null=True))
    def get_waived(self, obj: Acceptance) -> list | None:
        return obj.override.waived if obj.override is not None else None


class ReservationSerializer(serializers.ModelSerializer[Reservation]):
    request = serializers.IntegerField(source="request_id", read_only=True)
    bid = serializers.IntegerField(source="bid_id", read_only=True)
    provider = serializers.CharField(source="bid.provider.name", read_only=True)
    bid_revision = serializers.IntegerField(source="bid_revision.number", read_only=True)
    lot = serializers.IntegerField(
        source="lot.number",
        allow_null=True,
        read_only=True,
        help_text="The lot this reservation is for (a split award); null: the whole request.",
    )
    nodes = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="The nodes reserved (on the lot, if any)."
    )
    fixture_version = serializers.IntegerField(source="fixture_version.number", read_only=True)
    runs = RunSerializer(many=True, read_only=True)
    decision = serializers.SerializerMethodField()
    override = serializers.SerializerMethodField()
    clock_starts_at = serializers.DateTimeField(
        source="clock_start",
        allow_null=True,
        read_only=True,
        help_text="When the term's clock starts: the later of the acceptance and the term's "
        "first day (00:00 UTC). Null until accepted.",
    )

    class Meta:
        model = Reservation
        fields = [
            "id",
            "request",
            "bid",
            "provider",
            "bid_revision",
            "lot",
            "nodes",
            "fixture_version",
            "status",
            "awarded_at",
            "award_justification",
            "runs",
            "decision",
            "override",
            "clock_starts_at",
        ]
        read_only_fields = fields

    @extend_schema_field(OverrideSerializer(allow_null=True))
    def get_override(self, obj: Reservation) -> dict | None:
        """The override request awaiting a second approver, if any."""
        prefetched = getattr(obj, "pending_overrides", None)
        pending = prefetched[0] if prefetched else None
        if prefetched is None:
            pending = pending_override(obj)
        return dict(OverrideSerializer(pending).data) if pending is not None else None

    @extend_schema_field(DecisionSerializer(allow_null=True))
    def get_decision(self, obj: Reservation) -> dict | None:
        decision = getattr(obj, "decision", None)
        return dict(DecisionSerializer(decision).data) if decision is not None else None


class AcceptSerializer(serializers.Serializer):
    run = serializers.IntegerField(
        min_value=1, help_text="The burn-in run whose passing gate the acceptance rests on."
    )


class OverrideRequestSerializer(serializers.Serializer):
    run = serializers.IntegerField(min_value=1, help_text="The run whose gate fails.")
    reason = serializers.CharField(
        allow_blank=True,
        help_text="Why accept anyway: at least one full sentence (20 characters or more, ending "
        "with a full stop).",
    )
    waived = serializers.ListField(
        child=serializers.CharField(),
        allow_empty=True,
        help_text="The `code` of every blocking check of the run (GET /runs/{id}/evidence/ "
        "lists them under `checks`), each named explicitly.",
    )
    baseline_from_run = BooleanField(
        default=False,
        help_text="True makes the overridden run the recovery baseline; by default the "
        "contracted thresholds are.",
    )
    confirm = confirm_field("Must be true: you ask to accept over a failing gate.")


class DeclineSerializer(serializers.Serializer):
    reason = serializers.CharField(allow_blank=True, help_text="Why the override is declined.")


class RejectSerializer(serializers.Serializer):
    reason = reason_field("Why the reservation is rejected.")
