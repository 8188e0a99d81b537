"""The clarification channel over the API: a rival's JSON never names the asker, and a submit
waits (400, naming the addenda) until the provider acknowledges every addendum."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.api.v1.conftest import answer_all, token_client

pytestmark = pytest.mark.django_db

ASKED = "Which leaf switches host our 16 GPUs?"


def test_a_published_question_reaches_a_rival_without_the_asker(
    api_world, buyer, provider, rival_provider
):
    pk = api_world.request.pk
    asked = token_client(provider.user).post(
        f"/api/v1/requests/{pk}/questions/", {"text": ASKED}, format="json"
    )
    assert asked.status_code == 201 and asked.json()["asker_org"] == "Northwind"
    number = asked.json()["number"]
    buyer_view = token_client(buyer.user).get(f"/api/v1/requests/{pk}/questions/").json()
    assert buyer_view[0]["asker_org"] == "Northwind" and buyer_view[0]["state"] == "open"
    rival = token_client(rival_provider.user)
    assert rival.get(f"/api/v1/requests/{pk}/questions/").json() == []
    answered = token_client(buyer.user).post(
        f"/api/v1/requests/{pk}/questions/{number}/answer/",
        {"answer": "Two leaves, same pod.", "publish": True},
        format="json",
    )
    assert answered.status_code == 200 and answered.json()["state"] == "published"
    response = rival.get(f"/api/v1/requests/{pk}/questions/")
    (row,) = response.json()
    assert row["text"] == ASKED and row["answer"] == "Two leaves, same pod."
    assert row["asker_org"] is None and row["asker_name"] is None
    assert "Northwind" not in response.content.decode() and "nora" not in response.content.decode()
    audit = rival.get("/api/v1/audit/", {"object": f"request:{pk}"}).content.decode()
    assert "Northwind" not in audit and "nora" not in audit


def test_an_empty_question_is_a_400_naming_text(api_world, provider):
    response = token_client(provider.user).post(
        f"/api/v1/requests/{api_world.request.pk}/questions/", {"text": ""}, format="json"
    )
    assert response.status_code == 400 and "text" in response.json()["errors"]


def test_a_submit_waits_for_the_acknowledgement(api_world, buyer, provider):
    pk = api_world.request.pk
    later = api_world.request.bid_deadline + timedelta(days=1)
    published = token_client(buyer.user).post(
        f"/api/v1/requests/{pk}/addenda/",
        {
            "title": "Later deadline",
            "text": "One more day.",
            "bid_deadline": later.isoformat(),
            "summary": "Deadline one day later.",
            "confirm": True,
        },
        format="json",
    )
    assert published.status_code == 201
    assert published.json()["version"] == 2 and published.json()["deadline_after"]
    client = token_client(provider.user)
    bid = api_world.bid.pk
    client.patch(f"/api/v1/bids/{bid}/", {"site": "Frankfurt FR3"}, format="json")
    answer_all(api_world.bid, provider.user)  # the questionnaire, as a complete bid has it
    refused = client.post(f"/api/v1/bids/{bid}/submit/")
    assert refused.status_code == 400
    assert "Acknowledge addendum 1" in refused.json()["detail"]
    ack = client.post(f"/api/v1/requests/{pk}/addenda/1/acknowledge/")
    assert ack.status_code == 200 and ack.json()["acknowledged_by"] == "nora"
    done = client.post(f"/api/v1/bids/{bid}/submit/")
    assert done.status_code == 201, done.content
