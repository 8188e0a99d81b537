"""The baseline step time S2 is measured against, and the buyer's proposals."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers.common import NamedFileField, username_field
from incidents.models import BaselineProposal


class BaselineProposalSerializer(serializers.ModelSerializer[BaselineProposal]):
    proposed_by = username_field("proposed_by")
    decided_by = username_field("decided_by")
    file = serializers.CharField(source="original_name", read_only=True)

    class Meta:
        model = BaselineProposal
        fields = [
            "id", "step_time_s", "steps", "file", "sha256", "reason", "status",
            "proposed_by", "proposed_at", "decided_by", "decided_at", "decision_reason",
        ]  # fmt: skip
        read_only_fields = fields


class BaselineSerializer(serializers.Serializer):
    step_time_s = serializers.FloatField(
        allow_null=True, help_text="The baseline in force; null when none records a step time."
    )
    basis = serializers.CharField(help_text="Where it comes from: agreed, or the hand-over.")
    proposals = BaselineProposalSerializer(many=True)


class BaselineProposeSerializer(serializers.Serializer):
    file = NamedFileField(
        allow_empty_file=True,
        help_text="The job's step times: rank,node,step,seconds,timestamp or "
        "time,step,step_seconds[,rank].",
    )
    reason = serializers.CharField(max_length=2000, help_text="Why; it is on the record.")
