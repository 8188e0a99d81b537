"""PlainReadMixin prints what DRF's own field walk prints, for every shape of request: a draft
with its optional fields empty, an open one, a closed one, one in a final round."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from api.serializers.attachments import BidAttachmentSerializer
from api.serializers.bids import BidRevisionSerializer, BidSerializer, ScoreSerializer
from api.serializers.common import OrganizationSerializer, PlainReadMixin
from api.serializers.requests import RequestSerializer
from bids import services
from bids.models import Bid, BidAttachment, CapacityRequest
from bids.services import bid_attachment_add, bid_save_draft, bid_submit
from evaluation.services import request_score
from tests.bids.attachment_helpers import PDF_BYTES, upload
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


def test_a_plain_serializer_plans_once_per_class_and_method_fields_read_their_own_context(
    world, buyer
):
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
    third = WithMethod(context={"word": "C "})
    assert third.to_representation(requests[0])["shout"].startswith("C ")
    assert "fields" not in third.__dict__  # the shared plan: the method is called on `third`


def test_bids_revisions_scores_and_files_print_as_drf_prints_them(
    world, buyer, provider, settings, tmp_path
):
    """A provider's draft with a file not yet submitted, the buyer's view of a frozen revision
    that carries the file (its attachments are stored dicts), and a scored bid."""
    settings.MEDIA_ROOT = tmp_path / "media"
    bid_attachment_add(
        bid=world.bid, user=provider.user, upload=upload("tier3.pdf", PDF_BYTES), description="T3"
    )
    bid_save_draft(
        bid=world.bid, user=provider.user, data={"spares_count": 7, "spares_location": "same_site"}
    )
    revision = bid_submit(bid=world.bid, user=provider.user)
    bid_save_draft(bid=world.bid, user=provider.user, data={"spares_count": 9})
    run = request_score(capacity_request=world.request)
    bid = Bid.objects.select_related("provider", "questionnaire_answers").get(pk=world.bid.pk)
    assert revision.attachments and run.scores.exists()

    def same(serializer: serializers.BaseSerializer, instance: object) -> dict:
        fast = PlainReadMixin.to_representation(serializer, instance)
        drf = serializers.Serializer.to_representation(serializer, instance)
        assert _printed(fast) == _printed(drf)
        return fast

    draft = same(BidSerializer(), bid)
    assert draft["has_unsubmitted_changes"] is True and draft["spares_count"] == 9
    seen = same(BidSerializer(context={"revisions": {bid.pk: revision}}), bid)
    assert seen["has_unsubmitted_changes"] is None and seen["shows_revision"] == revision.number
    frozen = same(BidRevisionSerializer(), revision)
    assert frozen["attachments"][0]["name"] == "tier3.pdf" and frozen["spares_count"] == 7
    for score in run.scores.all():
        same(ScoreSerializer(), score)
    for attachment in BidAttachment.objects.filter(bid=bid):
        assert same(BidAttachmentSerializer(), attachment)["file_url"].endswith(
            f"/attachments/{attachment.pk}/file/"
        )
