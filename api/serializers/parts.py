"""The parts of a request a provider reads before bidding: fixture, terms, questionnaire."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import WriteModelSerializer, stated
from contracts.defaults import terms_templates
from contracts.models import HandoffTerms, TermsFields
from engine.evidence.fixtures import templates as fixture_templates
from questionnaire.models import Question, QuestionSet


class FixtureVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    template = serializers.CharField()
    spec_sha256 = serializers.CharField()
    spec = serializers.JSONField()
    manifest = serializers.JSONField()
    created_at = serializers.DateTimeField()
    versions = serializers.ListField(child=serializers.IntegerField(), source="version_numbers")
    bundle_url = serializers.CharField(help_text="GET it for the runnable .tar.gz bundle.")


class FixtureCreateSerializer(serializers.Serializer):
    template = serializers.ChoiceField(choices=[t.key for t in fixture_templates()])
    name = serializers.CharField(required=False, allow_blank=True, max_length=120)


# Any JSON value but null: a spec value is never null (DRF's JSONField refuses it).
NOT_NULL = {
    "anyOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {}},
        {"type": "object"},
    ]
}


class FixtureChangeSerializer(serializers.Serializer):
    changes = stated(
        serializers.DictField(
            child=serializers.JSONField(),
            help_text='Dotted spec path → new value, e.g. {"tests.nccl_tests.iterations": 50}.',
        ),
        {"type": "object", "additionalProperties": NOT_NULL, "x-required": True},
    )
    reasons = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="Dotted threshold path → why it changes (required for thresholds.*).",
    )


class TermsSerializer(WriteModelSerializer[HandoffTerms]):
    class Meta:
        model = HandoffTerms
        fields = ["version", "template", "updated_at", *TermsFields.term_field_names()]
        read_only_fields = ["version", "template", "updated_at"]


class TermsCreateSerializer(serializers.Serializer):
    template = serializers.ChoiceField(choices=[t.key for t in terms_templates()])


class QuestionSerializer(serializers.ModelSerializer[Question]):
    class Meta:
        model = Question
        fields = [
            "key",
            "section",
            "text",
            "help_text",
            "answer_type",
            "choices",
            "required",
            "rule",
            "rule_value",
            "step",
            "column",
            "bound_to",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "bound_to": {
                "help_text": "The bid field that answers this question (e.g. spares_count); "
                "blank when it is answered here. An answer given for a bound question must "
                "equal the field's value."
            }
        }


class InForceSerializer(serializers.Serializer):
    target_response_minutes = serializers.DictField(child=serializers.IntegerField())
    target_restore_minutes = serializers.DictField(child=serializers.IntegerField())
    targets_source = serializers.CharField(help_text="e.g. 'handoff terms v2'")
    required_transport = serializers.CharField(allow_blank=True)
    transport_source = serializers.CharField(allow_blank=True)


class QuestionSetSerializer(serializers.ModelSerializer[QuestionSet]):
    questions = QuestionSerializer(many=True, read_only=True)
    in_force = serializers.SerializerMethodField(
        help_text="What answers are judged against, as the pages and scoring use it: the "
        "handoff terms' clocks override the set's own targets, the fixture's transport the "
        "set's."
    )

    class Meta:
        model = QuestionSet
        fields = [
            "id",
            "name",
            "version",
            "target_response_minutes",
            "target_restore_minutes",
            "required_transport",
            "in_force",
            "questions",
        ]
        read_only_fields = fields

    @extend_schema_field(InForceSerializer(allow_null=True))
    def get_in_force(self, obj: QuestionSet) -> dict[str, Any] | None:
        from questionnaire.selectors import required_transport, targets_for

        request = obj.request
        if request is None:  # a library copy: no request, no terms, no fixture
            return None
        targets = targets_for(capacity_request=request, question_set=obj)
        transport, transport_source = required_transport(capacity_request=request, question_set=obj)
        return {
            "target_response_minutes": targets.get("response") or {},
            "target_restore_minutes": targets.get("restore") or {},
            "targets_source": targets.get("source", ""),
            "required_transport": transport,
            "transport_source": transport_source,
        }
