"""Award scenarios: the buyer's rules in, the optimiser's stored answer out."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import (
    DecimalField,
    ReadModelSerializer,
    WriteModelSerializer,
)
from api.serializers.reservations import ReservationSerializer
from evaluation.models import AwardScenario, ScenarioAward
from evaluation.scenario_models import SCENARIO_FIELDS

RULE_HELP = {
    "min_share": "Incumbents that keep at least a share: {provider organisation id: percent}.",
    "excluded_providers": "Provider organisation ids left out of the award.",
    "max_share_pct": "No provider over this percent of the award, by GPUs or value (share_basis).",
    "required_useful_gpu_hours": "The floor the lowest-cost objective must reach.",
}


class ScenarioWriteSerializer(WriteModelSerializer[AwardScenario]):
    min_share = serializers.DictField(
        child=DecimalField(max_digits=5, decimal_places=2, min_value=0, max_value=100),
        required=False,
        help_text=RULE_HELP["min_share"],
    )
    excluded_providers = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        help_text=RULE_HELP["excluded_providers"],
    )

    class Meta:
        model = AwardScenario
        fields = list(SCENARIO_FIELDS)

    def validate_min_share(self, value: dict[str, Any]) -> dict[str, str]:
        return {str(k): str(v) for k, v in value.items()}


@extend_schema_field(
    {
        "type": "object",
        "description": "The optimiser's answer (engine.award.result_to_dict): status, lines, "
        "figures, mip_gap, rule_costs, conflicts, uncoverable_lots, ineligible, allocation. "
        "Money and hours are decimal strings. Empty until solved.",
    }
)
class ResultField(serializers.JSONField):
    pass


class ScenarioSerializer(ReadModelSerializer[AwardScenario]):
    result = ResultField(read_only=True)
    min_share = serializers.DictField(
        child=serializers.CharField(), read_only=True, help_text=RULE_HELP["min_share"]
    )
    excluded_providers = serializers.ListField(
        child=serializers.IntegerField(), read_only=True, help_text=RULE_HELP["excluded_providers"]
    )
    created_by = serializers.CharField(source="created_by.username", read_only=True, default="")

    class Meta:
        model = AwardScenario
        fields = [
            "id",
            *SCENARIO_FIELDS,
            "status",
            "error",
            "result",
            "solved_at",
            "created_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class ScenarioAwardWriteSerializer(serializers.Serializer):
    justification = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=4000,
        help_text="Why this allocation: required (one full sentence at least) when it gives a "
        "lot to a bid the current scoring disqualifies; kept with every reservation either way.",
    )


class ScenarioAwardSerializer(serializers.ModelSerializer[ScenarioAward]):
    scenario = serializers.IntegerField(source="scenario_id", read_only=True)
    reservations = ReservationSerializer(many=True, read_only=True)

    class Meta:
        model = ScenarioAward
        fields = ["scenario", "scenario_name", "justification", "awarded_at", "reservations"]
        read_only_fields = fields
