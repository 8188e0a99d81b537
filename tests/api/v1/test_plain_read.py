"""PlainReadMixin prints what DRF's own field walk prints, for every shape of request: a draft
with its optional fields empty, an open one, a closed one, one in a final round."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from api.serializers.common import OrganizationSerializer, PlainReadMixin
from api.serializers.requests import RequestSerializer
from bids import services
from bids.models import CapacityRequest
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


def _printed(data: object) -> str:
    return json.dumps(json.loads(JSONRenderer().render(data)), sort_keys=True)


def _drf(serializer_class: type, instance: object) -> object:
    """The output of DRF's generic walk over the fields (what the mixin replaces)."""
    return serializers.Serializer.to_representation(serializer_class(), instance)


def test_every_request_shape_prints_as_drf_prints_it(world, buyer):
    CapacityRequestFactory(
        buyer=buyer.org, status="draft", published_at=None, description="", sealed=True
    )
    closed = CapacityRequestFactory(buyer=buyer.org)
    closed.status, closed.closed_at, closed.bids_opened_at = "closed", timezone.now(), None
    closed.save()
    services.request_close(request=world.request, user=buyer.user, confirmed=True)
    services.final_round_open(
        request=world.request,
        user=buyer.user,
        shortlist=[world.bid.pk],
        bid_deadline=timezone.now() + timedelta(days=2),
        confirmed=True,
    )
    requests = list(CapacityRequest.objects.filter(buyer=buyer.org).select_related("buyer"))
    assert len(requests) == 3
    fast = RequestSerializer(requests, many=True).data
    assert _printed(fast) == _printed([_drf(RequestSerializer, r) for r in requests])
    assert _printed(OrganizationSerializer(buyer.org).data) == _printed(
        _drf(OrganizationSerializer, buyer.org)
    )
    assert {r["round"] for r in fast} == {1, 2}


def test_a_plain_serializer_plans_once_per_class_and_a_method_field_keeps_its_own(world, buyer):
    requests = list(CapacityRequest.objects.filter(buyer=buyer.org).select_related("buyer"))
    first = RequestSerializer(requests, many=True).data
    later = RequestSerializer()
    assert later.to_representation(requests[0]) == first[0]
    assert "fields" not in later.__dict__  # the shared plan: no ModelSerializer fields built

    class WithMethod(PlainReadMixin, serializers.ModelSerializer[CapacityRequest]):
        shout = serializers.SerializerMethodField()

        class Meta:
            model = CapacityRequest
            fields = ["id", "shout"]

        def get_shout(self, obj: CapacityRequest) -> str:
            return str(self.context.get("word", "")) + obj.title

    one = WithMethod(context={"word": "A "}).to_representation(requests[0])
    two = WithMethod(context={"word": "B "}).to_representation(requests[0])
    assert one["shout"].startswith("A ") and two["shout"].startswith("B ")
