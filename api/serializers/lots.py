"""Lots under a request, and the shapes of a bid's lot offers and bundle conditions."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.common import (
    DecimalField,
    ReadModelSerializer,
    WriteModelSerializer,
)
from bids.models import Lot
from bids.models.lots import LOT_FIELDS
from engine.lots import BUNDLE_KINDS, MAX_DISCOUNT_PCT


class LotSerializer(ReadModelSerializer[Lot]):
    gpu_count = serializers.IntegerField(read_only=True, help_text="nodes × GPUs per node.")
    start = serializers.DateField(
        read_only=True, help_text="The lot's start, or the request's when it gives none."
    )
    end = serializers.DateField(
        read_only=True, help_text="The lot's last day, or the request's when it gives none."
    )

    class Meta:
        model = Lot
        fields = ["number", *LOT_FIELDS, "gpu_count", "start", "end", "updated_at"]
        read_only_fields = fields
        extra_kwargs = {"number": {"help_text": "How bids and bundle conditions name the lot."}}


class LotWriteSerializer(WriteModelSerializer[Lot]):
    class Meta:
        model = Lot
        fields = list(LOT_FIELDS)


class LotOfferSerializer(serializers.Serializer):
    lot = serializers.IntegerField(help_text="The lot's number in the request.")
    price_per_gpu_hour = DecimalField(max_digits=8, decimal_places=3)
    nodes = serializers.IntegerField(
        help_text="Whole nodes offered: all of an indivisible lot; for a divisible one at least "
        "its minimum block and at most its nodes."
    )


class BundleSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=BUNDLE_KINDS,
        help_text="all_or_nothing: only together with all of `lots`; discount: −`discount_pct` "
        "% on those lots if all are awarded; max_total: at most `max_gpus` GPUs across lots.",
    )
    lots = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="Lot numbers (2 or more)."
    )
    discount_pct = DecimalField(
        max_digits=5,
        decimal_places=2,
        required=False,
        help_text=f"discount only: above 0, at most {MAX_DISCOUNT_PCT} %.",
    )
    max_gpus = serializers.IntegerField(
        required=False, help_text="max_total only: at least your smallest offered block."
    )


# Stored and checked as plain data (see engine.lots): the service words each problem by its
# position, so the fields take any JSON list and the schema shows the shape.
@extend_schema_field(LotOfferSerializer(many=True))
class LotOffersField(serializers.JSONField):
    pass


@extend_schema_field(BundleSerializer(many=True))
class BundlesField(serializers.JSONField):
    pass
