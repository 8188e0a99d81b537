"""Approval by policy: the buyer's requests to publish or award, and each approval given."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers.common import reason_field, username_field
from bids.models import Approval, ApprovalAction, ApprovalRequest


class ApprovalGivenSerializer(serializers.ModelSerializer[Approval]):
    approver = username_field("approver", allow_null=False)
    on_behalf_of = username_field(
        "on_behalf_of",
        help_text="The approver who delegated to `approver` for the day; null: their own.",
    )

    class Meta:
        model = Approval
        fields = ["approver", "on_behalf_of", "at"]
        read_only_fields = fields


class ApprovalRequestSerializer(serializers.ModelSerializer[ApprovalRequest]):
    request = serializers.IntegerField(source="request_id", read_only=True)
    bid = serializers.IntegerField(
        source="bid_id",
        read_only=True,
        allow_null=True,
        help_text="The bid to award; null: publish.",
    )
    asked_by = username_field(
        "asked_by", help_text="Who asked; the move is made in their name. null: they left."
    )
    approvals = ApprovalGivenSerializer(many=True, read_only=True)

    class Meta:
        model = ApprovalRequest
        fields = [
            "id",
            "request",
            "action",
            "bid",
            "value",
            "needed",
            "approvals",
            "status",
            "justification",
            "view",
            "asked_by",
            "asked_at",
            "decided_at",
            "decline_reason",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "value": {
                "help_text": "What was approved: the request's budget, or the award's price for "
                "every GPU over the term plus fees (USD); the move must still be worth it."
            },
            "needed": {"help_text": "How many different approvers the policy asks for (1 or 2)."},
        }


class ApprovalAskSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=ApprovalAction.choices)
    bid = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None, help_text="award: the bid."
    )
    justification = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="award: why this bid, where the ranking does not put it first (one full "
        "sentence at least), as POST /requests/{id}/award/ asks.",
    )
    view = serializers.CharField(
        required=False,
        default="request",
        help_text="award: the ranking the award follows (request, consensus, evaluator:<id>).",
    )


class ApprovalGiveSerializer(serializers.Serializer):
    on_behalf_of = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="The user id of an approver who delegated to you for today; omit to approve "
        "as yourself.",
    )


class ApprovalDeclineSerializer(serializers.Serializer):
    reason = reason_field("Why you decline, in at least one full sentence; the asker reads it.")


class ApprovedSerializer(serializers.Serializer):
    approval = ApprovalRequestSerializer()
    done = serializers.BooleanField(
        help_text="Whether this approval completed it and the move was made."
    )
    problem = serializers.CharField(
        help_text="Approved, but the move could not be made yet: why (empty otherwise)."
    )
