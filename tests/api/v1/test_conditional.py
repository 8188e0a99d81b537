"""Polling clients: the request list, one bid and the comparison carry an ETag; sending it back
answers 304 while nothing the caller sees changed, a change answers 200 with a new tag, and the
tag opens nothing to a caller who may not read the object."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from bids.models import Bid, CapacityRequest
from bids.services import bid_save_draft, bid_submit
from evaluation.services import request_score
from tests.api.v1.conftest import token_client
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


def _tagged(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200 and response.content
    assert "private" in response["Cache-Control"] and "no-cache" in response["Cache-Control"]
    return response["ETag"]


def _unchanged(client, url: str, tag: str) -> bool:
    response = client.get(url, HTTP_IF_NONE_MATCH=tag)
    if response.status_code == 304:
        assert not response.content and response["ETag"] == tag
        return True
    assert response.status_code == 200 and response["ETag"] != tag
    return False


def test_the_request_list_answers_304_until_a_request_changes(world, buyer, provider):
    client, url = token_client(buyer.user), "/api/v1/requests/"
    tag = _tagged(client, url)
    assert _unchanged(client, url, tag)
    client.patch(f"/api/v1/requests/{world.request.pk}/", {"title": "Renamed"}, format="json")
    assert not _unchanged(client, url, tag)
    tag = _tagged(client, url)
    assert "Renamed" in client.get(url).content.decode()
    # Deadlines pass with no write, and the list says so.
    CapacityRequest.objects.filter(pk=world.request.pk).update(
        bid_deadline=timezone.now() - timedelta(minutes=1)
    )
    assert not _unchanged(client, url, tag)
    # Another organisation's copy of the URL is its own list, never a 304 on the buyer's tag.
    assert not _unchanged(token_client(provider.user), url, tag)
    assert not _unchanged(client, f"{url}?ordering=title", tag)


def test_the_request_list_says_of_each_request_whether_its_deadline_passed(world, buyer):
    client = token_client(buyer.user)
    passed = CapacityRequestFactory(
        buyer=buyer.org, bid_deadline=timezone.now() - timedelta(minutes=1)
    )
    rows = {row["id"]: row for row in client.get("/api/v1/requests/").json()["results"]}
    assert rows[passed.pk]["deadline_passed"] is True
    assert rows[world.request.pk]["deadline_passed"] is False
    # A single request's answer reads the clock as well.
    assert client.get(f"/api/v1/requests/{passed.pk}/").json()["deadline_passed"] is True


def test_one_bid_answers_304_to_its_readers_and_404_to_everyone_else(
    world, buyer, provider, rival_provider, outsider
):
    url = f"/api/v1/bids/{world.bid.pk}/"
    owner, reader = token_client(provider.user), token_client(buyer.user)
    own_tag, read_tag = _tagged(owner, url), _tagged(reader, url)
    assert own_tag != read_tag
    assert _unchanged(owner, url, own_tag) and _unchanged(reader, url, read_tag)
    for other in (rival_provider, outsider):
        for tag in (own_tag, read_tag):
            assert token_client(other.user).get(url, HTTP_IF_NONE_MATCH=tag).status_code == 404
    assert APIClient().get(url, HTTP_IF_NONE_MATCH=read_tag).status_code == 401
    # The buyer's tag follows what the buyer is shown: not the provider's draft.
    Bid.objects.filter(pk=world.bid.pk).update(spares_count=9, has_unsubmitted_changes=True)
    assert _unchanged(reader, url, read_tag) and not _unchanged(owner, url, own_tag)
    own_tag = _tagged(owner, url)

    bid_save_draft(
        bid=world.bid, user=provider.user, data={"spares_count": 5, "spares_location": "same_site"}
    )
    assert not _unchanged(owner, url, own_tag)
    own_tag = _tagged(owner, url)
    # However the row was written, a changed value is a changed answer.
    Bid.objects.filter(pk=world.bid.pk).update(shortlisted=True)
    assert not _unchanged(owner, url, own_tag)
    assert owner.get(url).json()["shortlisted"] is True


def test_the_comparison_answers_304_until_scoring_moves(
    world, buyer, provider, rival_provider, outsider
):
    request_score(capacity_request=world.request)
    url = f"/api/v1/requests/{world.request.pk}/comparison/"
    client = token_client(buyer.user)
    tag = _tagged(client, url)
    assert _unchanged(client, url, tag)
    assert not _unchanged(client, f"{url}?labels=anonymous", tag)
    for other in (provider, rival_provider, outsider):
        assert token_client(other.user).get(url, HTTP_IF_NONE_MATCH=tag).status_code == 404

    bid_save_draft(
        bid=world.bid, user=provider.user, data={"spares_count": 5, "spares_location": "same_site"}
    )
    bid_submit(bid=world.bid, user=provider.user)
    assert not _unchanged(client, url, tag)  # the shown numbers are now stale
    stale = _tagged(client, url)
    assert client.get(url).json()["stale"] is True
    request_score(capacity_request=world.request)
    assert not _unchanged(client, url, stale)
    assert client.get(url).json()["stale"] is False
