"""Bids: flat terms (as the browser form has them) plus the questionnaire answers."""

from __future__ import annotations

from typing import Any, cast

from django.db.models import Field
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.attachments import RevisionAttachmentSerializer
from api.serializers.common import ReadModelSerializer, WriteModelSerializer
from api.serializers.lots import BundlesField, LotOffersField
from bids.forms import BID_FIELDSETS
from bids.models import Bid, BidRevision, BidTerms, bounds
from bids.models.offer_kinds import OfferKind
from evaluation.models import BidScore

# The form's terms, then what a bid offers per lot on a request with lots (empty without).
BID_TERM_FIELDS = [name for _, names in BID_FIELDSETS for name in names] + ["lot_offers", "bundles"]
LOTS_HELP = (
    "On a request with lots: one offer per lot you bid on. Saving one sets the bid's `nodes` "
    "and `price_per_gpu_hour` to the offers' total and GPU-weighted price."
)
BUNDLES_HELP = "On a request with lots: conditions on your lot offers (see docs/lots.md)."
ANSWERS_HELP = (
    "Questionnaire answers keyed by question key (see the request's `questionnaire`). "
    "When given, they replace the draft's answers."
)


def optional_choice(name: str) -> serializers.ChoiceField:
    """A choice a bid may leave blank, as read: DRF drops `allow_blank` from read-only fields, so
    without this the schema would not admit the "" an unanswered envelope field reads."""
    field = cast("Field[Any, Any]", BidTerms._meta.get_field(name))
    return serializers.ChoiceField(
        choices=field.choices or [],
        allow_blank=True,
        read_only=True,
        label=str(field.verbose_name)[:1].upper() + str(field.verbose_name)[1:],
        help_text=str(field.help_text) or None,
    )


class OfferKindSerializer(serializers.Serializer[OfferKind]):
    """The bid's offer kind on the one scale every kind compares on."""

    kind = serializers.CharField(read_only=True)
    description = serializers.CharField(read_only=True)
    isolation = serializers.CharField(read_only=True)
    device_fraction = serializers.CharField(
        source="fraction_text", read_only=True, help_text="The share of one GPU a slice is: 3/7."
    )
    price_per_slice_hour = serializers.DecimalField(
        max_digits=8, decimal_places=3, read_only=True, allow_null=True
    )
    price_per_device_hour = serializers.DecimalField(
        max_digits=12,
        decimal_places=3,
        read_only=True,
        allow_null=True,
        help_text="The slice price scaled to one whole-device-equivalent hour.",
    )


def offer_kind_data(terms: BidTerms) -> dict[str, Any] | None:
    kind = terms.offer_kind
    return dict(OfferKindSerializer(kind).data) if kind is not None else None


class BidTermsWriteSerializer(WriteModelSerializer[Bid]):
    lot_offers = LotOffersField(required=False, help_text=LOTS_HELP)
    bundles = BundlesField(required=False, help_text=BUNDLES_HELP)
    answers = serializers.DictField(
        child=serializers.JSONField(), required=False, help_text=ANSWERS_HELP
    )

    class Meta:
        model = Bid
        fields = [*BID_TERM_FIELDS, "answers"]
        extra_kwargs: dict[str, dict[str, Any]] = {
            name: {"required": False} for name in BID_TERM_FIELDS
        }
        # The model's own words, not the generic "greater than or equal to 2".
        extra_kwargs["time_slice_replicas"]["error_messages"] = {
            "min_value": bounds.REPLICAS_TOO_FEW, "max_value": bounds.REPLICAS_TOO_MANY,
        }  # fmt: skip


class BidCreateSerializer(BidTermsWriteSerializer):
    request = serializers.IntegerField(min_value=1, help_text="The request you are invited to.")

    class Meta(BidTermsWriteSerializer.Meta):
        fields = ["request", *BidTermsWriteSerializer.Meta.fields]


class ScoreSerializer(ReadModelSerializer[BidScore]):
    effective_price = serializers.FloatField(allow_null=True, read_only=True)
    run = serializers.IntegerField(source="run_id", read_only=True)

    class Meta:
        model = BidScore
        fields = [
            "run",
            "qualified",
            "rank",
            "total",
            "effective_price",
            "criteria",
            "disqualifications",
            "win_share",
        ]
        read_only_fields = fields


class BidSerializer(ReadModelSerializer[Bid]):
    """The provider sees its working draft; the buyer sees the latest submitted revision."""

    request = serializers.IntegerField(source="request_id", read_only=True)
    provider = serializers.CharField(source="provider.name", read_only=True)
    lot_offers = LotOffersField(read_only=True, help_text=LOTS_HELP)
    bundles = BundlesField(read_only=True, help_text=BUNDLES_HELP)
    placement_class = optional_choice("placement_class")
    reclaim_effect = optional_choice("reclaim_effect")
    answers = serializers.SerializerMethodField()
    shows_revision = serializers.SerializerMethodField(
        help_text="The revision number the terms and answers come from; null for the draft."
    )
    has_unsubmitted_changes = serializers.SerializerMethodField(
        help_text="Whether the draft differs from the last submitted revision; null for the "
        "buyer, who sees only what was submitted."
    )
    offer_kind = serializers.SerializerMethodField(
        help_text="The offer kind, its share of a GPU and its price per whole-device-equivalent "
        "hour; null while a MIG or time-sliced draft lacks its profile or replicas."
    )

    class Meta:
        model = Bid
        fields = [
            "id",
            "request",
            "provider",
            "status",
            "latest_revision_number",
            "has_unsubmitted_changes",
            "created_at",
            "updated_at",
            "withdrawn_at",
            "shortlisted",
            "shows_revision",
            *BID_TERM_FIELDS,
            "offer_kind",
            "answers",
        ]
        read_only_fields = fields

    @extend_schema_field(OfferKindSerializer(allow_null=True))
    def get_offer_kind(self, obj: Bid) -> dict[str, Any] | None:
        return offer_kind_data(self._revision(obj) or obj)

    def _revision(self, obj: Bid) -> BidRevision | None:
        return self.context.get("revisions", {}).get(obj.pk)

    def to_representation(self, instance: Bid) -> dict[str, Any]:
        revision = self._revision(instance)
        if revision is None:
            return super().to_representation(instance)
        # A revision stores the same terms (BidTerms) as the bid: this serializer's own term
        # fields print them, with no second serializer built per bid, and the draft's unread.
        return self.print_object(instance, dict.fromkeys(BID_TERM_FIELDS, revision))

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_answers(self, obj: Bid) -> dict[str, Any]:
        revision = self._revision(obj)
        if revision is not None:
            return dict((revision.questionnaire or {}).get("answers", {}))
        row = getattr(obj, "questionnaire_answers", None)
        return dict(row.answers) if row is not None else {}

    def get_has_unsubmitted_changes(self, obj: Bid) -> bool | None:
        # Whether a provider is editing its bid is none of the buyer's business.
        return None if self._revision(obj) is not None else obj.has_unsubmitted_changes

    def get_shows_revision(self, obj: Bid) -> int | None:
        revision = self._revision(obj)
        return revision.number if revision is not None else None


class BuyerBidSerializer(BidSerializer):
    score = serializers.SerializerMethodField()

    class Meta(BidSerializer.Meta):
        fields = [*BidSerializer.Meta.fields, "score"]
        read_only_fields = fields

    @extend_schema_field(ScoreSerializer(allow_null=True))
    def get_score(self, obj: Bid) -> dict[str, Any] | None:
        score = self.context.get("scores", {}).get(obj.pk)
        return dict(ScoreSerializer(score).data) if score is not None else None


class BidRevisionSerializer(ReadModelSerializer[BidRevision]):
    bid = serializers.IntegerField(source="bid_id", read_only=True)
    lot_offers = LotOffersField(read_only=True, help_text=LOTS_HELP)
    bundles = BundlesField(read_only=True, help_text=BUNDLES_HELP)
    placement_class = optional_choice("placement_class")
    reclaim_effect = optional_choice("reclaim_effect")
    questionnaire = serializers.JSONField(read_only=True)
    attachments = RevisionAttachmentSerializer(many=True, read_only=True)
    offer_kind = serializers.SerializerMethodField()

    class Meta:
        model = BidRevision
        fields = [
            "bid",
            "number",
            "round",
            "submitted_at",
            *BID_TERM_FIELDS,
            "offer_kind",
            "questionnaire",
            "attachments",
        ]
        read_only_fields = fields
        extra_kwargs = {"round": {"help_text": "1, or 2 when submitted in the final round."}}

    @extend_schema_field(OfferKindSerializer(allow_null=True))
    def get_offer_kind(self, obj: BidRevision) -> dict[str, Any] | None:
        return offer_kind_data(obj)
