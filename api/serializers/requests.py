"""Capacity requests, invitations, weights and providers as the API reads and writes them."""

from __future__ import annotations

from datetime import datetime
from functools import cached_property
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import (
    ConfirmSerializer,
    OrganizationSerializer,
    ReadModelSerializer,
    WriteModelSerializer,
    stated,
)
from api.serializers.lots import LotSerializer
from api.serializers.parts import (
    FixtureVersionSerializer,
    QuestionSetSerializer,
    TermsSerializer,
)
from bids.choices import IsolationClass, Region
from bids.forms import REQUEST_FIELDSETS
from bids.lots import LotTotal, lot_total
from bids.models import Addendum, CapacityRequest, Invitation
from engine.scoring import CRITERIA, MAX_WEIGHT

REQUEST_FIELDS = [name for _, names in REQUEST_FIELDSETS for name in names]


class RequestWriteSerializer(WriteModelSerializer[CapacityRequest]):
    acceptable_regions = serializers.ListField(
        child=serializers.ChoiceField(choices=Region.choices), allow_empty=False
    )
    accepted_offer_kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=IsolationClass.choices),
        allow_empty=False,
        required=False,
        help_text="Which offer kinds bids may be: whole_device, mig, time_sliced.",
    )

    class Meta:
        model = CapacityRequest
        fields = REQUEST_FIELDS


class PassedField(serializers.BooleanField):
    """Whether the bid deadline has passed (`CapacityRequest.deadline_passed_at`), against one
    reading of the clock per answer: the context's `now` (the one a list's ETag counted with),
    else the first row's. Every row of a list reads the same now, and the clock once."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(read_only=True, source="*", **kwargs)

    @cached_property
    def now(self) -> datetime:
        now: datetime | None = self.context.get("now")
        return now if now is not None else timezone.now()

    def to_representation(self, value: CapacityRequest) -> bool:  # type: ignore[override]
        return value.deadline_passed_at(self.now)


class RequestSerializer(ReadModelSerializer[CapacityRequest]):
    buyer = OrganizationSerializer(read_only=True)
    acceptable_regions = serializers.ListField(child=serializers.CharField(), read_only=True)
    accepted_offer_kinds = serializers.ListField(child=serializers.CharField(), read_only=True)
    deadline_passed = PassedField()

    class Meta:
        model = CapacityRequest
        fields = [
            "id",
            "buyer",
            "status",
            *REQUEST_FIELDS,
            "deadline_passed",
            "bids_opened_at",
            "closed_at",
            "round",
            "created_at",
            "updated_at",
            "published_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "bids_opened_at": {
                "help_text": "When a close opened the bids to the buyer (sealed: the deadline "
                "or the close, whichever came first); they stay open after a reopen."
            },
            "closed_at": {"help_text": "When bidding was last closed; null while open."},
            "round": {
                "help_text": "The bidding round: 1, or 2 once a best-and-final round opened to "
                "a shortlist (sealed until its deadline or close)."
            },
        }


class ReopenSerializer(ConfirmSerializer):
    # Optional here so that the service words a missing deadline, after the move's own check.
    bid_deadline = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The new bid deadline (required): in the future, before the reservation starts.",
    )


class FinalRoundSerializer(ConfirmSerializer):
    # Optional here so that the service words a missing shortlist or deadline on its field.
    shortlist = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=list,
        help_text="Ids of the submitted bids shortlisted for the final round (at least one).",
    )
    bid_deadline = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The final round's deadline (required): in the future, before the "
        "reservation starts.",
    )


class AddendumSerializer(serializers.ModelSerializer[Addendum]):
    class Meta:
        model = Addendum
        fields = [
            "number",
            "version",
            "title",
            "text",
            "summary",
            "deadline_before",
            "deadline_after",
            "published_at",
        ]
        read_only_fields = fields


class AddendumWriteSerializer(ConfirmSerializer):
    # Not required or bounded here: the service words each field's error (400 naming it).
    title = stated(
        serializers.CharField(
            required=False, allow_blank=True, default="", help_text="At most 120 characters."
        ),
        {"type": "string", "minLength": 1, "maxLength": 120, "pattern": r"\S", "x-required": True},
    )
    text = stated(
        serializers.CharField(
            required=False,
            allow_blank=True,
            default="",
            trim_whitespace=True,
            help_text="At most 20,000 characters.",
        ),
        {
            "type": "string",
            "minLength": 1,
            "maxLength": 20000,
            "pattern": r"\S",
            "x-required": True,
        },
    )
    bid_deadline = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Optional: extend the bid deadline (later than the current one).",
    )
    summary = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Optional: what changed."
    )


class InvitationSerializer(serializers.ModelSerializer[Invitation]):
    provider = OrganizationSerializer(read_only=True)

    class Meta:
        model = Invitation
        fields = ["provider", "invited_at"]
        read_only_fields = fields


class InviteSerializer(serializers.Serializer):
    providers = serializers.ListField(
        child=serializers.SlugField(), allow_empty=False, help_text="Provider slugs to invite."
    )


class WeightsSerializer(serializers.Serializer):
    """One weight per scoring criterion; the scoring package validates the values."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            name: serializers.FloatField(required=True, min_value=0, max_value=MAX_WEIGHT)
            for name in CRITERIA
        }

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return {name: float(instance.get(name, 0)) for name in CRITERIA}


class LotTotalSerializer(serializers.Serializer[LotTotal]):
    gpus = serializers.IntegerField(help_text="The lots' GPUs, added up.")
    requested = serializers.IntegerField(help_text="The request's GPUs.")
    problem = serializers.CharField(
        allow_null=True,
        help_text="Why they cannot be published as they are, and the fix; null when they add up.",
    )


class RequestDetailSerializer(RequestSerializer):
    """A request with what a provider needs to bid: the fixture, terms and questionnaire."""

    fixture = serializers.SerializerMethodField()
    terms = serializers.SerializerMethodField()
    questionnaire = serializers.SerializerMethodField()
    lots = serializers.SerializerMethodField(
        help_text="The request's lots, by number (also at `lots/`); empty: one implicit lot, "
        "the request's own allocation and term."
    )

    lots_total = serializers.SerializerMethodField(
        help_text="The lots' GPUs against the request's, with what to change while they differ "
        "(publishing is refused until they add up); null for a request without lots."
    )

    class Meta(RequestSerializer.Meta):
        fields = [
            *RequestSerializer.Meta.fields,
            "fixture",
            "terms",
            "questionnaire",
            "lots",
            "lots_total",
        ]
        read_only_fields = fields

    def _part(self, name: str, serializer: type[serializers.BaseSerializer]) -> Any:
        value = self.context.get("parts", {}).get(name)
        return None if value is None else serializer(value).data

    @extend_schema_field(FixtureVersionSerializer(allow_null=True))
    def get_fixture(self, obj: CapacityRequest) -> Any:
        return self._part("fixture", FixtureVersionSerializer)

    @extend_schema_field(TermsSerializer(allow_null=True))
    def get_terms(self, obj: CapacityRequest) -> Any:
        return self._part("terms", TermsSerializer)

    @extend_schema_field(LotSerializer(many=True))
    def get_lots(self, obj: CapacityRequest) -> Any:
        return LotSerializer(self.context.get("parts", {}).get("lots", []), many=True).data

    @extend_schema_field(LotTotalSerializer(allow_null=True))
    def get_lots_total(self, obj: CapacityRequest) -> Any:
        lots = self.context.get("parts", {}).get("lots", [])
        total = lot_total(capacity_request=obj, lots=lots)
        return None if total is None else LotTotalSerializer(total).data

    @extend_schema_field(QuestionSetSerializer(allow_null=True))
    def get_questionnaire(self, obj: CapacityRequest) -> Any:
        return self._part("questionnaire", QuestionSetSerializer)
