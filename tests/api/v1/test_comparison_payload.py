"""The comparison API prints the matrix without re-serialising it field by field; what it
prints must be exactly what ComparisonSerializer (the documented schema) would print."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from api.serializers.comparison import (
    ComparisonSerializer,
    comparison_data,
    comparison_payload,
    rounds_data,
)
from bids import services
from evaluation.comparison import comparison_for_buyer
from evaluation.rounds import round_comparison
from evaluation.services import request_score
from tests.evaluation.pages.conftest import add_bids

pytestmark = pytest.mark.django_db


def _both(req, *, anonymise: bool) -> tuple[object, object]:
    view = comparison_for_buyer(capacity_request=req, anonymise=anonymise)
    final = round_comparison(capacity_request=req, anonymise=view.anonymised)
    data = comparison_data(view)
    data["rounds"] = rounds_data(final, anonymised=view.anonymised)
    schema = json.loads(JSONRenderer().render(ComparisonSerializer(data).data))
    fast = json.loads(JSONRenderer().render(comparison_payload(view, final)))
    # Compared as printed (sorted keys): 5 and 5.0 are equal in Python, not in the JSON.
    assert json.dumps(fast, sort_keys=True) == json.dumps(schema, sort_keys=True)
    return schema, fast


@pytest.mark.parametrize("anonymise", [False, True])
def test_the_payload_is_what_the_serializer_prints(world, anonymise):
    add_bids(world.request, 3)
    assert request_score(capacity_request=world.request).status == "done"
    schema, fast = _both(world.request, anonymise=anonymise)
    assert fast == schema
    assert len(fast["columns"]) == 5 and fast["groups"][0]["rows"][0]["cells"]


def test_the_payload_with_both_rounds_is_what_the_serializer_prints(world, buyer, provider):
    req = world.request
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    services.final_round_open(
        capacity_request=req,
        user=buyer.user,
        shortlist=[world.bid.pk, world.rival_bid.pk],
        bid_deadline=timezone.now() + timedelta(days=3),
        confirmed=True,
    )
    world.bid.refresh_from_db()
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("1.900")}
    )
    services.bid_submit(bid=world.bid, user=provider.user)
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    req.refresh_from_db()
    request_score(capacity_request=req)
    schema, fast = _both(req, anonymise=False)
    assert fast == schema
    assert {r["final_round"]["price_per_gpu_hour"] for r in fast["rounds"]} >= {"1.900"}
