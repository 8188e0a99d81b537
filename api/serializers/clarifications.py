"""Questions and addendum acknowledgements as the API reads and writes them. A question is
serialized from `bids.clarification_selectors.QuestionRow`: for a rival invitee its asker is
null, because the row never held it."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers.common import BooleanField, ConfirmSerializer, stated
from bids.models import AddendumAcknowledgement, QuestionState


class ClarificationQuestionSerializer(serializers.Serializer):
    number = serializers.IntegerField(
        help_text="The reader's number: the buyer's request-wide one, the asker's own count, "
        "or for other invitees the published count."
    )
    text = serializers.CharField(
        help_text="The asker's words for the buyer and the asker; the published wording for "
        "other invitees."
    )
    published_text = serializers.CharField(
        help_text="Once published: the wording every invitee reads (empty before)."
    )
    published_number = serializers.IntegerField(
        allow_null=True, help_text="Once published: its number in the published count."
    )
    state = serializers.ChoiceField(choices=QuestionState.choices)
    asked_at = serializers.DateTimeField()
    answer = serializers.CharField(help_text="Empty while the question is open.")
    answered_at = serializers.DateTimeField(allow_null=True)
    own = serializers.BooleanField(help_text="Asked by the acting organisation.")
    addendum_number = serializers.IntegerField(
        allow_null=True, help_text="The addendum that answered it by changing the request."
    )
    asker_org = serializers.CharField(
        allow_null=True, help_text="The buyer's and the asker's only; null for other invitees."
    )
    asker_name = serializers.CharField(allow_null=True, help_text="As `asker_org`.")


class ClarificationQuestionWriteSerializer(serializers.Serializer):
    # Not required or bounded here: the service words the error (400 naming `text`).
    text = stated(
        serializers.CharField(
            required=False, allow_blank=True, default="", help_text="At most 4,000 characters."
        ),
        {"type": "string", "minLength": 1, "maxLength": 4000, "pattern": r"\S", "x-required": True},
    )


class AnswerWriteSerializer(ConfirmSerializer):
    answer = stated(
        serializers.CharField(required=False, allow_blank=True, default=""),
        {"type": "string", "minLength": 1, "pattern": r"\S", "x-required": True},
    )
    # Needed only when the answer also publishes an addendum (`bid_deadline` or `summary`).
    confirm = BooleanField(
        default=False, help_text="true confirms the addendum this answer publishes, if any."
    )
    publish = BooleanField(
        default=False,
        help_text="false: only the asking provider reads it; true: every invitee, without the "
        "asker's name.",
    )
    title = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="The addendum's title when the answer changes the request.",
    )
    published_text = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=4000,
        help_text="Published answers only: the question's wording every invitee reads, edited "
        "or redacted from the asker's (the asker's own words when empty).",
    )
    bid_deadline = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A later bid deadline: the published answer becomes an addendum (confirm).",
    )
    summary = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="What changed in the request: the published answer becomes an addendum.",
    )


class AcknowledgementSerializer(serializers.ModelSerializer[AddendumAcknowledgement]):
    addendum = serializers.IntegerField(source="addendum.number")
    provider = serializers.CharField(source="provider.name")
    acknowledged_by = serializers.CharField(source="acknowledged_by.username", allow_null=True)

    class Meta:
        model = AddendumAcknowledgement
        fields = ["addendum", "provider", "acknowledged_by", "acknowledged_at"]
        read_only_fields = fields
