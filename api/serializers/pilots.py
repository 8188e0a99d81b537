"""Pilots before the award as the API shows them: the pilot with its verified figures, the
buyer's invitation, the scoring choice, and the comparison's pilot section."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from acceptance.models import PILOT_MAX_DAYS, Pilot
from acceptance.selectors.pilot import figure_rows
from api.serializers.common import BooleanField, ReadModelSerializer
from core.limits import TEXT_LIMIT


class PilotFigureSourceSerializer(serializers.Serializer):
    file = serializers.CharField(
        allow_null=True, help_text="The evidence file (null while the comparison is anonymised)."
    )
    line = serializers.IntegerField(allow_null=True)
    where = serializers.CharField(help_text="What was read: the GPU pair, the HCA, the size.")


class PilotFigureSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    unit = serializers.CharField()
    claimed = serializers.FloatField(
        allow_null=True,
        help_text="What the bid claims; null where it claims nothing.",
    )
    claimed_from = serializers.ChoiceField(
        choices=["bid", "fixture"],
        allow_null=True,
        help_text="bid: its own terms; fixture: the fixture floor it acknowledged.",
    )
    verified = serializers.FloatField(
        allow_null=True, help_text="What the pilot measured; null until it is measured."
    )
    source = PilotFigureSourceSerializer(allow_null=True)  # type: ignore[assignment]


class PilotSerializer(ReadModelSerializer[Pilot]):
    request = serializers.IntegerField(source="bid.request_id", read_only=True)
    provider = serializers.CharField(source="bid.provider.name", read_only=True)
    run = serializers.IntegerField(source="run.pk", read_only=True)
    checks_state = serializers.CharField(source="run.checks_state", read_only=True)
    gate_summary = serializers.CharField(source="run.gate_summary", read_only=True)
    evidence_url = serializers.SerializerMethodField()
    figures = serializers.SerializerMethodField()

    class Meta:
        model = Pilot
        fields = [
            "id",
            "request",
            "bid",
            "provider",
            "starts_on",
            "ends_on",
            "instructions",
            "invited_at",
            "run",
            "checks_state",
            "gate_summary",
            "evidence_url",
            "figures",
        ]
        read_only_fields = fields

    def get_evidence_url(self, obj: Pilot) -> str:
        return f"/api/v1/pilots/{obj.pk}/evidence/"

    @extend_schema_field(PilotFigureSerializer(many=True))
    def get_figures(self, obj: Pilot) -> list[dict[str, Any]]:
        """Claimed beside verified; the claims are read from the bid's latest revision and the
        fixture floors it acknowledged, which the view passes in the context as `revisions`
        and `floors` (by bid id)."""
        revision = self.context.get("revisions", {}).get(obj.bid_id)
        floors = self.context.get("floors", {}).get(obj.bid_id)
        return [row.to_json() for row in figure_rows(obj, revision, floors=floors)]


class PilotInviteSerializer(serializers.Serializer):
    bid = serializers.IntegerField(
        min_value=1, max_value=2_147_483_647, help_text="A shortlisted, submitted bid."
    )
    starts_on = serializers.DateField(help_text="The pilot's first day.")
    ends_on = serializers.DateField(
        help_text=f"The pilot's last day: on or after the first, at most {PILOT_MAX_DAYS} days."
    )
    instructions = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=TEXT_LIMIT,
        help_text="The buyer's application run: what it is and how to start it.",
    )


class PilotScoringSerializer(serializers.Serializer):
    use_verified = BooleanField(
        help_text="Score on the pilots' verified figures where a pilot verified them (else on "
        "the bids' claims). Changing it re-scores the bids."
    )


class PilotBidSerializer(serializers.Serializer):
    bid = serializers.IntegerField(allow_null=True, help_text="Null while anonymised.")
    name = serializers.CharField()
    pilot = serializers.IntegerField(allow_null=True, help_text="Null until invited.")
    figures = PilotFigureSerializer(many=True)


class PilotSectionSerializer(serializers.Serializer):
    scoring_uses_verified = serializers.BooleanField()
    bids = PilotBidSerializer(many=True)
