"""Availability, credits and maintenance windows, as the reservation page shows them: every
figure with its value and its formula."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers.common import FIELD_MAPPING
from delivery.models import MaintenanceWindow
from engine.delivery.availability import Figure, Month, NodeRow, Report


class FigureSerializer(serializers.Serializer[Figure]):
    value = serializers.DecimalField(max_digits=20, decimal_places=4, allow_null=True)
    formula = serializers.CharField()


class TierSerializer(serializers.Serializer[Any]):
    below_pct = serializers.DecimalField(max_digits=6, decimal_places=3)
    credit_pct = serializers.DecimalField(max_digits=6, decimal_places=3)


class MonthSerializer(serializers.Serializer[Month]):
    month = serializers.CharField(source="label", help_text="The calendar month (UTC), YYYY-MM.")
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()
    accepted_hours = FigureSerializer()
    scheduled_node_hours = FigureSerializer()
    maintenance_node_hours = FigureSerializer()
    down_node_hours = FigureSerializer()
    availability_pct = FigureSerializer()
    accepted_gpu_hours = FigureSerializer()
    fees = FigureSerializer(help_text="USD at the agreed rate.")
    tier = TierSerializer(allow_null=True)
    tier_credit_pct = FigureSerializer()
    breaches = serializers.IntegerField()
    breach_credit_pct = FigureSerializer()
    credit_pct = FigureSerializer()
    credit = FigureSerializer(help_text="USD.")
    lost_gpu_hours = FigureSerializer()


class NodeSerializer(serializers.Serializer[NodeRow]):
    node = serializers.CharField()
    contracted = serializers.BooleanField()
    scheduled_hours = serializers.DecimalField(max_digits=20, decimal_places=3)
    maintenance_hours = serializers.DecimalField(max_digits=20, decimal_places=3)
    down_hours = serializers.DecimalField(max_digits=20, decimal_places=3)
    availability_pct = FigureSerializer()


class ReportSerializer(serializers.Serializer[Report]):
    term_start = serializers.DateTimeField()
    term_end = serializers.DateTimeField()
    as_of = serializers.DateTimeField()
    months = MonthSerializer(many=True)
    nodes = NodeSerializer(many=True)
    accepted_gpu_hours = FigureSerializer()
    lost_gpu_hours = FigureSerializer()
    useful_gpu_hours = FigureSerializer()
    fees = FigureSerializer()
    prorated_extras = FigureSerializer()
    credits = FigureSerializer()
    paid = FigureSerializer()
    cost_per_useful_gpu_hour = FigureSerializer()
    notes = serializers.ListField(child=serializers.CharField())


class AvailabilitySerializer(serializers.Serializer[Any]):
    reservation = serializers.IntegerField()
    terms_source = serializers.CharField()
    lanes = serializers.ListField(child=serializers.CharField())
    report = ReportSerializer(
        allow_null=True, help_text="null until the term starts (the buyer accepts)."
    )
    standing = serializers.DictField(
        child=serializers.CharField(),
        help_text="Incident id → acknowledged or unanswered (counted), awaiting (not yet "
        "acknowledged, its response clock still running) or disputed (left out of `report`).",
    )
    report_if_counted = ReportSerializer(
        allow_null=True,
        help_text="With disputed incidents: the figures counting them (the opener's reading); "
        "null when nothing is disputed.",
    )


class MaintenanceWindowSerializer(serializers.ModelSerializer[MaintenanceWindow]):
    serializer_field_mapping = FIELD_MAPPING
    state = serializers.CharField(
        read_only=True, help_text="planned (with notice), awaiting (short notice) or agreed."
    )
    announced_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    agreed_by: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )

    class Meta:
        model = MaintenanceWindow
        fields = [
            "id", "reservation", "nodes", "starts_at", "ends_at", "reason", "announced_at",
            "announced_by", "notice_hours", "short_notice", "state", "agreed_at", "agreed_by",
        ]  # fmt: skip
        read_only_fields = fields


class MaintenanceAnnounceSerializer(serializers.Serializer[Any]):
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    nodes = serializers.ListField(
        child=serializers.CharField(max_length=63), required=False, default=list,
        help_text="Node labels; empty or absent for the whole allocation.",
    )  # fmt: skip
    reason = serializers.CharField(max_length=2000)
