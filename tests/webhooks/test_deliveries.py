"""Deliveries: one per event and subscribed endpoint, sent after the move commits, signed as
docs/webhooks.md says, retried with backoff up to the bound, redelivered on request, and
carrying only what the receiving organisation is told, a sealed request's silence included."""

from __future__ import annotations

from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from audit.models import AuditEntry
from bids import services as bids
from bids.notices import bids_opened_sweep
from core.errors import Conflict
from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members
from orgs.services import invitation_send
from tests.audit.conftest import pass_deadline
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory
from tests.webhooks.conftest import subscribe
from tests.webhooks.receiver import documented_verify, receiving
from webhooks.choices import DeliveryState
from webhooks.models import Attempt, Delivery
from webhooks.models import Event as WebhookEvent
from webhooks.selectors import events_for
from webhooks.services import (
    deliveries_sweep,
    delivery_attempt,
    delivery_redeliver,
    endpoint_update,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("private_targets")]


def _open_request_with_bid(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=False)
    InvitationFactory(request=req, provider=provider.org)
    return req, BidFactory(request=req, provider=provider.org)


def _due_now(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def test_a_bid_revision_reaches_the_buyers_endpoint_signed_with_its_notices_words(
    buyer, provider, django_capture_on_commit_callbacks
):
    req, bid = _open_request_with_bid(buyer, provider)
    with receiving(200) as receiver:
        endpoint, secret = subscribe(buyer, receiver.url, Event.BID_SUBMITTED)
        with django_capture_on_commit_callbacks(execute=True):
            bids.bid_submit(bid=bid, user=provider.user)
    (got,) = receiver.received
    assert documented_verify()(secret, got.headers["Clusterbid-Signature"], got.body)
    assert not documented_verify()("whsec_wrong", got.headers["Clusterbid-Signature"], got.body)
    notice = Notice.objects.get(recipient=buyer.user, event=Event.BID_SUBMITTED)
    payload = got.json()
    event = WebhookEvent.objects.get()
    assert payload == {
        "version": 1,
        "id": str(event.public_id),
        "type": "bid_submitted",
        "occurred_at": event.occurred_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "organization": {"slug": "helix", "name": "Helix Labs", "kind": "buyer"},
        "data": {
            "subject": notice.subject,
            "text": notice.body,
            "url": f"http://127.0.0.1:8000/requests/{req.pk}/",
        },
    }
    assert got.path == "/hooks/clusterbid"
    assert got.headers["Clusterbid-Event"] == "bid_submitted"
    assert got.headers["Clusterbid-Event-Id"] == str(event.public_id)
    delivery = Delivery.objects.get(endpoint=endpoint)
    assert got.headers["Clusterbid-Delivery"] == str(delivery.public_id)
    assert delivery.state == DeliveryState.DELIVERED
    (attempt,) = delivery.attempt_log.all()
    assert attempt.succeeded and attempt.status_code == 200 and attempt.error == ""


def test_a_refused_delivery_waits_its_backoff_then_succeeds(
    buyer, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_RETRY_BASE_SECONDS = 120
    with receiving(500, 200) as receiver:
        subscribe(buyer, receiver.url, Event.BIDS_OPENED, Event.MEMBERSHIP)
        with django_capture_on_commit_callbacks(execute=True):
            notify_members(
                event=Event.MEMBERSHIP, organization=buyer.org, subject="s", body="b",
                path="/org/members/", key="m:1",
            )  # fmt: skip
        delivery = Delivery.objects.get()
        assert delivery.state == DeliveryState.PENDING and delivery.attempts == 1
        wait = delivery.next_attempt_at - delivery.attempt_log.get().started_at
        assert timedelta(seconds=119) < wait < timedelta(seconds=125)
        assert delivery_attempt(delivery_id=delivery.pk) == "not due"
        _due_now(delivery)
        assert delivery_attempt(delivery_id=delivery.pk) == DeliveryState.DELIVERED
        assert delivery_attempt(delivery_id=delivery.pk) == "already delivered"
    first, second = Attempt.objects.order_by("number")
    assert (first.status_code, first.succeeded, first.error) == (
        500,
        False,
        "The receiver answered 500",
    )
    assert (second.status_code, second.succeeded) == (200, True)
    assert [r.headers["Clusterbid-Attempt"] for r in receiver.received] == ["1", "2"]
    assert len({r.headers["Clusterbid-Event-Id"] for r in receiver.received}) == 1


def test_attempts_are_bounded_then_a_redelivery_tries_once_more(
    buyer, buyer_requester, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    with receiving(503, 503, 204) as receiver:
        subscribe(buyer, receiver.url, Event.BIDS_OPENED)
        with django_capture_on_commit_callbacks(execute=True):
            notify_members(
                event=Event.BIDS_OPENED, organization=buyer.org, subject="s", body="b", path="/",
                key="a:1",
            )  # fmt: skip
        delivery = Delivery.objects.get()
        _due_now(delivery)
        assert delivery_attempt(delivery_id=delivery.pk) == DeliveryState.FAILED
        assert delivery_attempt(delivery_id=delivery.pk) == "already failed"
        with pytest.raises(PermissionDenied):
            delivery_redeliver(delivery=delivery, user=buyer_requester.user)
        with django_capture_on_commit_callbacks(execute=True):
            delivery_redeliver(delivery=delivery, user=buyer.user)
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.DELIVERED and delivery.attempts == 3
    last = delivery.attempt_log.last()
    assert last.status_code == 204 and last.requested_by == buyer.user
    entry = AuditEntry.objects.get(action="webhook.redeliver")
    assert entry.after["delivery"] == str(delivery.public_id)


def test_a_redelivery_is_refused_while_an_attempt_is_under_way(buyer):
    subscribe(buyer, "http://127.0.0.1:9/", Event.BIDS_OPENED)
    notify_members(event=Event.BIDS_OPENED, organization=buyer.org, subject="s", body="b", path="/",
                   key="a:1")  # fmt: skip
    delivery = Delivery.objects.get()
    Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.SENDING)
    with pytest.raises(Conflict, match="An attempt is under way"):
        delivery_redeliver(delivery=delivery, user=buyer.user)


def test_an_unreachable_or_local_target_is_a_logged_failed_attempt(buyer, settings):
    subscribe(buyer, "http://127.0.0.1:9/closed", Event.BIDS_OPENED)
    notify_members(event=Event.BIDS_OPENED, organization=buyer.org, subject="s", body="b", path="/",
                   key="a:1")  # fmt: skip
    delivery = Delivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == DeliveryState.PENDING
    assert "ConnectionRefusedError" in delivery.attempt_log.get().error
    # Saved while tests allowed it; production settings refuse it again at each attempt.
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    _due_now(delivery)
    delivery_attempt(delivery_id=delivery.pk)
    refused = delivery.attempt_log.last()
    assert refused.status_code is None
    assert refused.error == "Refused: The URL must start with https://."


def test_one_event_per_occurrence_and_endpoint_however_often_it_is_told(buyer, provider):
    subscribe(buyer, "http://127.0.0.1:9/a", Event.BIDS_OPENED)
    subscribe(buyer, "http://127.0.0.1:9/b", Event.BIDS_OPENED)
    subscribe(buyer, "http://127.0.0.1:9/c", Event.QUESTION_ASKED)  # not subscribed to bids opened
    for _ in range(2):
        notify_members(event=Event.BIDS_OPENED, organization=buyer.org, subject="s", body="b",
                       path="/", key="a:1")  # fmt: skip
    assert WebhookEvent.objects.count() == 1
    assert sorted(d.endpoint.url[-1] for d in Delivery.objects.all()) == ["a", "b"]


def test_a_disabled_endpoint_is_sent_nothing(buyer):
    endpoint, _ = subscribe(buyer, "http://127.0.0.1:9/", Event.BIDS_OPENED)
    endpoint_update(endpoint=endpoint, user=buyer.user, url=endpoint.url, events=endpoint.events,
                    active=False)  # fmt: skip
    notify_members(event=Event.BIDS_OPENED, organization=buyer.org, subject="s", body="b", path="/",
                   key="a:1")  # fmt: skip
    assert not Delivery.objects.exists() and not WebhookEvent.objects.exists()


def test_an_invitation_to_join_is_the_invited_persons_not_the_organisations(
    buyer, outsider, django_capture_on_commit_callbacks
):
    subscribe(buyer, "http://127.0.0.1:9/", Event.MEMBERSHIP)
    with django_capture_on_commit_callbacks(execute=True):
        invitation_send(org=buyer.org, user=buyer.user, email=outsider.user.email, role="approver")
    assert Notice.objects.filter(recipient=outsider.user, event=Event.MEMBERSHIP).exists()
    assert not WebhookEvent.objects.exists()


def test_a_sealed_request_sends_nothing_per_bid_then_only_the_count(
    buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    with receiving(200) as buyer_hook, receiving(200) as rival_hook:
        # Each subscribed to every event its kind is sent.
        subscribe(buyer, buyer_hook.url, *(code for code, _ in events_for(buyer.org)))
        subscribe(
            rival_provider, rival_hook.url, *(code for code, _ in events_for(rival_provider.org))
        )
        with django_capture_on_commit_callbacks(execute=True):
            bids.request_invite(
                capacity_request=req, user=buyer.user, providers=[provider.org, rival_provider.org]
            )
            for role in (provider, rival_provider):
                bids.bid_submit(bid=BidFactory(request=req, provider=role.org), user=role.user)
        assert buyer_hook.received == []
        pass_deadline(req)
        with django_capture_on_commit_callbacks(execute=True):
            bids_opened_sweep()
    (opened,) = [r.json() for r in buyer_hook.received]
    assert opened["type"] == "bids_opened" and "2 bids received" in opened["data"]["subject"]
    text = repr(opened)
    assert "Northwind" not in text and "Rival Cloud" not in text and "USD" not in text
    # The rival hears of its own invitation, never of Northwind's bid.
    assert [r.json()["type"] for r in rival_hook.received] == ["invitation"]
    assert "Northwind" not in repr([r.json() for r in rival_hook.received])


def test_the_sweep_resends_a_lost_retry_and_frees_a_lost_attempt(
    buyer, django_capture_on_commit_callbacks
):
    with receiving(200) as receiver:
        subscribe(buyer, receiver.url, Event.BIDS_OPENED, Event.QUESTION_ASKED)
        for key, event in (("a:1", Event.BIDS_OPENED), ("l:1", Event.QUESTION_ASKED)):
            notify_members(event=event, organization=buyer.org, subject="s", body="b", path="/",
                           key=key)  # fmt: skip
        lost_retry, lost_attempt = Delivery.objects.order_by("event__key")
        an_hour_ago = timezone.now() - timedelta(hours=1)
        Delivery.objects.filter(pk=lost_retry.pk).update(next_attempt_at=an_hour_ago)
        Delivery.objects.filter(pk=lost_attempt.pk).update(
            state=DeliveryState.SENDING, claimed_at=an_hour_ago
        )
        with django_capture_on_commit_callbacks(execute=True):
            assert deliveries_sweep() == 2  # in-process here: sent at once
    assert set(Delivery.objects.values_list("state", flat=True)) == {DeliveryState.DELIVERED}
    assert len(receiver.received) == 2


def test_slack_and_pagerduty_endpoints_get_their_own_shapes(
    buyer, django_capture_on_commit_callbacks
):
    with receiving(200) as slack, receiving(202) as pagerduty:
        subscribe(buyer, slack.url, Event.INCIDENT_OPENED, payload_format="slack")
        subscribe(buyer, pagerduty.url, Event.INCIDENT_OPENED, payload_format="pagerduty",
                  routing_key="R" * 32)  # fmt: skip
        with django_capture_on_commit_callbacks(execute=True):
            notify_members(
                event=Event.INCIDENT_OPENED, organization=buyer.org, subject="S1 incident opened",
                body="gpu-03 down.", path="/incidents/4/", key="incident:4",
            )  # fmt: skip
    assert slack.received[0].json() == {
        "text": "*S1 incident opened*\ngpu-03 down.\n"
        "<http://127.0.0.1:8000/incidents/4/|Open in Clusterbid>"
    }
    event = pagerduty.received[0].json()
    assert event["routing_key"] == "R" * 32 and event["event_action"] == "trigger"
    assert event["payload"]["severity"] == "critical"
    assert Delivery.objects.filter(state=DeliveryState.DELIVERED).count() == 2


def test_a_secret_no_configured_key_opens_fails_the_attempt_in_words_and_retries(
    buyer, settings, django_capture_on_commit_callbacks
):
    """SIGNING_KEY changed without listing the old key: nothing is sent unsigned, the attempt
    says why, and once the old key is listed again the retry goes through."""
    old = settings.SIGNING_KEYS
    with receiving(200) as receiver:
        endpoint, _ = subscribe(buyer, receiver.url, Event.INCIDENT_OPENED)
        settings.SIGNING_KEYS = [Fernet.generate_key().decode()]
        with django_capture_on_commit_callbacks(execute=True):
            notify_members(
                event=Event.INCIDENT_OPENED, organization=buyer.org, subject="S1",
                body="gpu-03 down.", path="/incidents/4/", key="incident:4",
            )  # fmt: skip
        assert receiver.received == []
        delivery = Delivery.objects.get(endpoint=endpoint)
        assert delivery.state == DeliveryState.PENDING and delivery.next_attempt_at is not None
        (attempt,) = delivery.attempt_log.all()
        assert attempt.status_code is None and not attempt.succeeded
        assert attempt.error.startswith(
            "The server cannot read the signing secret of the webhook to 127.0.0.1"
        )
        settings.SIGNING_KEYS = [*settings.SIGNING_KEYS, *old]  # SIGNING_KEY_PREVIOUS=old
        _due_now(delivery)
        assert delivery_attempt(delivery_id=delivery.pk) == DeliveryState.DELIVERED
    assert len(receiver.received) == 1
