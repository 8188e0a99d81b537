"""Webhooks through the API: the pages' rules, from a script.

An organisation's administrators add, list, edit, rotate and delete its endpoints, read each
one's delivery log and redeliver from it. The signing secret is in the answer that made it and
nowhere else; another member is refused naming the administrators; another organisation's
endpoint or delivery is a 404; a bad value is a 400 naming its field in the service's words.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from tests.api.v1.conftest import token_client
from webhooks.choices import DeliveryState
from webhooks.models import Attempt, Delivery, Endpoint, Event
from webhooks.services import endpoint_create, secrets_in_force

pytestmark = pytest.mark.django_db

HOOKS = "/api/v1/webhooks/"
BODY = {"url": "https://hooks.example.com/cb", "events": ["bid_submitted", "incident_opened"]}


def _endpoint(role: Any) -> Endpoint:
    return endpoint_create(
        organization=role.org, user=role.user, url=BODY["url"], events=["incident_opened"]
    )[0]


def _delivery(endpoint: Endpoint, key: str, *, state: str, ago: int) -> Delivery:
    moment = timezone.now() - timedelta(minutes=ago)
    event = Event.objects.create(
        organization=endpoint.organization,
        event_type="incident_opened",
        key=key,
        occurred_at=moment,
        payload={"data": {"subject": f"Incident {key}"}},
    )
    delivery = Delivery.objects.create(
        endpoint=endpoint,
        event=event,
        state=state,
        attempts=1,
        attempts_allowed=1,
        queued_at=moment,
    )
    Attempt.objects.create(
        delivery=delivery, number=1, started_at=moment, status_code=500, latency_ms=42
    )
    return delivery


def test_a_new_endpoint_shows_its_secret_once_and_never_again(buyer):
    client = token_client(buyer.user)
    made = client.post(HOOKS, BODY, format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    secret = body["secret"]
    assert secret.startswith("whsec_") and made["Cache-Control"] == "no-store"
    assert body["events"] == ["bid_submitted", "incident_opened"]
    assert body["payload_format"] == "generic" and body["active"] is True
    endpoint = Endpoint.objects.get(public_id=body["id"])
    assert secrets_in_force(endpoint=endpoint) == [secret]
    assert AuditEntry.objects.filter(action="webhook.create").count() == 1
    listed, one = client.get(HOOKS), client.get(f"{HOOKS}{body['id']}/")
    assert listed.status_code == one.status_code == 200
    for shown in (listed.json()["results"][0], one.json()):
        assert shown["id"] == body["id"] and "secret" not in shown
    assert secret not in listed.content.decode() + one.content.decode()


def test_a_replayed_create_says_what_was_made_but_not_its_secret(buyer):
    client = token_client(buyer.user)
    first = client.post(HOOKS, BODY, format="json", HTTP_IDEMPOTENCY_KEY="hook-1")
    again = client.post(HOOKS, BODY, format="json", HTTP_IDEMPOTENCY_KEY="hook-1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"] and again.json()["secret"] is None
    assert Endpoint.objects.count() == 1
    assert first.json()["secret"] not in again.content.decode()


def test_the_list_holds_the_organisations_own_endpoints_newest_first(buyer, outsider):
    older, newer = _endpoint(buyer), _endpoint(buyer)
    _endpoint(outsider)
    listed = token_client(buyer.user).get(HOOKS).json()
    assert set(listed) == {"count", "next", "previous", "results"}
    assert [row["id"] for row in listed["results"]] == [str(newer.public_id), str(older.public_id)]
    assert listed["results"][0]["created_by"] == "alice"


def test_an_edit_changes_what_is_given_and_keeps_the_rest(buyer):
    endpoint = _endpoint(buyer)
    url = f"{HOOKS}{endpoint.public_id}/"
    client = token_client(buyer.user)
    edited = client.patch(url, {"events": ["clock_breached"], "active": False}, format="json")
    assert edited.status_code == 200, edited.json()
    assert edited.json()["events"] == ["clock_breached"] and edited.json()["active"] is False
    assert edited.json()["url"] == BODY["url"]
    assert AuditEntry.objects.filter(action="webhook.edit").count() == 1
    fixed = client.patch(url, {"payload_format": "slack"}, format="json")
    assert fixed.status_code == 400 and list(fixed.json()["errors"]) == ["payload_format"]


def test_a_rotation_answers_the_new_secret_and_the_old_one_still_signs(buyer):
    endpoint = _endpoint(buyer)
    (old,) = secrets_in_force(endpoint=endpoint)
    client = token_client(buyer.user)
    rotated = client.post(f"{HOOKS}{endpoint.public_id}/rotate/")
    assert rotated.status_code == 200 and rotated["Cache-Control"] == "no-store"
    new = rotated.json()["secret"]
    assert new.startswith("whsec_") and new != old
    endpoint.refresh_from_db()
    assert secrets_in_force(endpoint=endpoint) == [new, old]
    assert rotated.json()["previous_secret_until"] is not None
    assert new not in client.get(f"{HOOKS}{endpoint.public_id}/").content.decode()


def test_a_deleted_endpoint_is_gone_with_its_log(buyer):
    endpoint = _endpoint(buyer)
    _delivery(endpoint, "a", state=DeliveryState.FAILED, ago=5)
    client = token_client(buyer.user)
    assert client.delete(f"{HOOKS}{endpoint.public_id}/").status_code == 204
    assert not Endpoint.objects.exists() and not Delivery.objects.exists()
    assert client.get(f"{HOOKS}{endpoint.public_id}/").status_code == 404
    assert AuditEntry.objects.filter(action="webhook.delete").count() == 1


def test_the_delivery_log_is_newest_first_with_each_attempt(buyer):
    endpoint = _endpoint(buyer)
    _delivery(endpoint, "old", state=DeliveryState.DELIVERED, ago=30)
    newest = _delivery(endpoint, "new", state=DeliveryState.FAILED, ago=1)
    log = token_client(buyer.user).get(f"{HOOKS}{endpoint.public_id}/deliveries/").json()
    assert log["count"] == 2
    first = log["results"][0]
    assert first["id"] == str(newest.public_id) and first["subject"] == "Incident new"
    assert first["state"] == "failed" and first["event_type"] == "incident_opened"
    assert first["attempt_log"] == [
        {
            "number": 1,
            "started_at": first["attempt_log"][0]["started_at"],
            "status_code": 500,
            "latency_ms": 42,
            "error": "",
            "succeeded": False,
            "requested_by": None,
        }
    ]


def test_a_redelivery_is_queued_and_refused_while_an_attempt_is_under_way(buyer):
    endpoint = _endpoint(buyer)
    failed = _delivery(endpoint, "a", state=DeliveryState.FAILED, ago=5)
    client = token_client(buyer.user)
    queued = client.post(f"/api/v1/webhook-deliveries/{failed.public_id}/redeliver/")
    assert queued.status_code == 202 and queued.json()["state"] == "pending"
    failed.refresh_from_db()
    assert failed.attempts_allowed == 2 and failed.redelivery_by == buyer.user
    assert AuditEntry.objects.filter(action="webhook.redeliver").count() == 1
    Delivery.objects.filter(pk=failed.pk).update(state=DeliveryState.SENDING)
    busy = client.post(f"/api/v1/webhook-deliveries/{failed.public_id}/redeliver/")
    assert busy.status_code == 409 and "under way" in busy.json()["detail"]


def _every_call(endpoint: Endpoint, delivery: Delivery) -> list[tuple[str, str, Any]]:
    one = f"{HOOKS}{endpoint.public_id}/"
    return [
        ("get", HOOKS, None),
        ("post", HOOKS, BODY),
        ("get", one, None),
        ("patch", one, {"description": "Mine now"}),
        ("delete", one, None),
        ("post", f"{one}rotate/", None),
        ("get", f"{one}deliveries/", None),
        ("post", f"/api/v1/webhook-deliveries/{delivery.public_id}/redeliver/", None),
    ]


def test_a_member_who_is_not_an_administrator_is_refused_naming_them(buyer, buyer_requester):
    endpoint = _endpoint(buyer)
    delivery = _delivery(endpoint, "a", state=DeliveryState.FAILED, ago=5)
    client = token_client(buyer_requester.user)
    for method, url, body in _every_call(endpoint, delivery):
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 403, (method, url)
        detail = response.json()["detail"]
        assert "Only the administrators of Helix Labs manage its webhooks" in detail, detail
        assert "alice" in detail and "rhea" not in detail
    assert Endpoint.objects.count() == 1 and Endpoint.objects.get().description == ""
    assert Delivery.objects.get().state == DeliveryState.FAILED


def test_another_organisations_endpoint_is_a_404_on_every_url(buyer, outsider):
    endpoint = _endpoint(buyer)
    delivery = _delivery(endpoint, "a", state=DeliveryState.FAILED, ago=5)
    client = token_client(outsider.user)
    for method, url, body in _every_call(endpoint, delivery)[2:]:
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 404, (method, url)
    assert Endpoint.objects.filter(pk=endpoint.pk, description="").exists()
    assert Delivery.objects.get().state == DeliveryState.FAILED
    assert client.get(HOOKS).json()["count"] == 0  # its own list: empty


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({**BODY, "url": "http://hooks.example.com/cb"}, "url", "must start with https://"),
        ({**BODY, "url": "https://localhost/cb"}, "url", "local name"),
        ({**BODY, "url": "https://127.0.0.1/cb"}, "url", "loopback"),
        ({**BODY, "url": "https://[::1/cb"}, "url", "not a valid address"),
        ({**BODY, "url": "https://hooks.example.com:port/"}, "url", "not a valid address"),
        ({**BODY, "url": f"https://{'a' * 64}.example.com/"}, "url", "not a valid host name"),
        ({**BODY, "events": ["award"]}, "events", "not sent these events: award"),
        ({**BODY, "events": []}, "events", ""),
        ({**BODY, "payload_format": "pagerduty"}, "routing_key", "PagerDuty needs"),
    ],
)
def test_a_bad_value_is_a_400_naming_its_field(buyer, body, field, words):
    response = token_client(buyer.user).post(HOOKS, body, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field] and words in errors[field][0], errors
    assert not Endpoint.objects.exists()


def test_a_provider_subscribes_to_compliance_expiry_a_buyer_is_told_why_not(buyer, provider):
    body = {**BODY, "events": ["compliance_expiring", "award"]}
    made = token_client(provider.user).post(HOOKS, body, format="json")
    assert made.status_code == 201 and made.json()["events"] == ["award", "compliance_expiring"]
    refused = token_client(buyer.user).post(HOOKS, body, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {
        "events": ["A buyer organisation is not sent these events: compliance_expiring, award."]
    }
    endpoint = _endpoint(buyer)
    edit = token_client(buyer.user).patch(
        f"{HOOKS}{endpoint.public_id}/", {"events": ["award"]}, format="json"
    )
    assert (
        edit.status_code == 400
        and "not sent these events: award" in edit.json()["errors"]["events"][0]
    )
    endpoint.refresh_from_db()
    assert endpoint.events == ["incident_opened"]


def test_an_edit_to_a_bad_url_is_a_400_naming_url(buyer):
    endpoint = _endpoint(buyer)
    response = token_client(buyer.user).patch(
        f"{HOOKS}{endpoint.public_id}/", {"url": "ftp://hooks.example.com/"}, format="json"
    )
    assert response.status_code == 400 and list(response.json()["errors"]) == ["url"]
    endpoint.refresh_from_db()
    assert endpoint.url == BODY["url"]
