"""Team evaluation in the API: a member's own view, and every view's ranking (buyers only)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from engine.scoring import MAX_WEIGHT
from evaluation.models import JudgedCriterion
from evaluation.team.recombine import JUDGED, JUDGEMENT_MAX, JUDGEMENT_MIN, VIEW_WEIGHTS
from evaluation.team.services import MAX_COMMENT


class TeamWeightsSerializer(serializers.Serializer):
    """The five scored criteria (required) and the two judged ones (0 when left out)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            name: serializers.FloatField(
                required=name not in JUDGED,
                default=0.0 if name in JUDGED else serializers.empty,
                min_value=0,
                max_value=MAX_WEIGHT,
            )
            for name in VIEW_WEIGHTS
        }

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return {name: float(instance.get(name, 0)) for name in VIEW_WEIGHTS}


class JudgementSerializer(serializers.Serializer):
    bid = serializers.IntegerField(min_value=1, help_text="A submitted bid on this request.")
    criterion = serializers.ChoiceField(choices=JudgedCriterion.choices)
    score = serializers.IntegerField(min_value=JUDGEMENT_MIN, max_value=JUDGEMENT_MAX)
    comment = serializers.CharField(allow_blank=True, default="", max_length=MAX_COMMENT)


class EvaluatorViewSerializer(serializers.Serializer):
    weights = TeamWeightsSerializer()
    judgements = JudgementSerializer(many=True, required=False, default=list)
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)


class PlacedSerializer(serializers.Serializer):
    bid = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField()
    total = serializers.FloatField()
    unrated = serializers.ListField(
        child=serializers.CharField(), help_text="Judged criteria weighed but not rated (as 3)."
    )


class RemarkSerializer(serializers.Serializer):
    bid = serializers.CharField()
    criterion = serializers.CharField()
    score = serializers.IntegerField()
    comment = serializers.CharField()


class ViewRankingSerializer(serializers.Serializer):
    view = serializers.CharField(
        help_text="What the award's `view` takes: request, consensus or evaluator:<user id>."
    )
    kind = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    weights = serializers.DictField(child=serializers.FloatField())
    ranking = PlacedSerializer(many=True)
    remarks = RemarkSerializer(many=True)


class AwardBasisSerializer(serializers.Serializer):
    view = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label
    first_in_view = serializers.CharField()
    followed = serializers.BooleanField()


class TeamEvaluationSerializer(serializers.Serializer):
    state = serializers.CharField(help_text="As the comparison's: sealed shows no ranking.")
    views = ViewRankingSerializer(many=True)
    disagreement = serializers.CharField(allow_null=True)
    award_basis = AwardBasisSerializer(allow_null=True)
