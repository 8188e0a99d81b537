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
from evaluation.models import ComparisonPresentation
from evaluation.rounds import round_comparison
from evaluation.services import request_score
from orgs.models import Organization
from tests.api.v1.conftest import token_client
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


@pytest.mark.parametrize("labels", ["", "?labels=anonymous"])
def test_the_answer_writes_the_stored_matrix_as_the_serializer_prints_it(world, buyer, labels):
    """The first read builds and stores the presentation; later reads write its stored JSON
    into the answer unparsed. Both answers are what the serializer prints, to the byte once
    parsed, with a provider name that JSON must escape."""
    Organization.objects.filter(pk=world.bid.provider_id).update(name='Nébula "GPU"\u2028Co')
    add_bids(world.request, 3)
    assert request_score(capacity_request=world.request).status == "done"
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/comparison/{labels}"
    first = client.get(url)
    again = client.get(url)
    assert first.status_code == again.status_code == 200
    assert ComparisonPresentation.objects.exclude(groups_json="").count() == 1
    schema, _ = _both(world.request, anonymise=bool(labels))
    for answer in (first, again):
        body = json.loads(answer.content)
        assert json.dumps(body["groups"], sort_keys=True) == json.dumps(
            schema["groups"], sort_keys=True
        )
        assert set(body) >= {"request", "state", "columns", "groups", "sensitivity", "pilots"}
    assert b"\xe2\x80\xa8" not in again.content  # U+2028 escaped, as DRF's renderer does
    names = [c["name"] for c in json.loads(again.content)["columns"]]
    assert ('Nébula "GPU"\u2028Co' in names) is not bool(labels)


def test_the_browsable_api_prints_the_matrix_anew(world, buyer):
    add_bids(world.request, 1)
    request_score(capacity_request=world.request)
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/comparison/"
    client.get(url)  # stores the presentation
    page = client.get(url, HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert "&quot;cells&quot;" in page.content.decode()  # the groups as objects, not a string


def test_the_sensitivity_reads_the_same_before_and_after_it_is_stored(world, buyer):
    """The first answer after scoring builds the presentation; the next reads it back from the
    database, whose JSON type orders keys its own way. A client diffing answers sees no change."""
    add_bids(world.request, 3)
    assert request_score(capacity_request=world.request).status == "done"
    client = token_client(buyer.user)
    url = f"/api/v1/requests/{world.request.pk}/comparison/"
    first, again = (client.get(url).content for _ in range(2))
    built, stored = (json.loads(body)["sensitivity"] for body in (first, again))
    assert json.dumps(built) == json.dumps(stored)  # the same keys in the same order
    assert list(stored)[:3] == ["verdict", "winner", "winner_share"]
    assert stored["shares"] and list(stored["shares"][0]) == ["name", "share"]
