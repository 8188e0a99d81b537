"""Managing endpoints: administrators only, the secret shown once and stored encrypted, local
targets refused outside tests, every change on the organisation's audit trail."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from audit.models import AuditEntry
from notices.choices import Event
from suppliers.services import send_expiry_reminders
from tests.bids.onboarding.helpers import file_iso27001
from tests.webhooks.conftest import subscribe
from webhooks.models import Delivery, Endpoint
from webhooks.services import (
    endpoint_delete,
    endpoint_rotate_secret,
    endpoint_update,
    secrets_in_force,
)
from webhooks.services.endpoints import routing_key

pytestmark = pytest.mark.django_db

SLACK = "https://hooks.slack.com/services/T000/B000/XXXXSECRETPATH"


def test_the_secret_is_returned_once_and_stored_only_encrypted(buyer, private_targets):
    _, secret = subscribe(buyer, "https://hooks.example.com/cb", Event.BID_SUBMITTED)
    assert secret.startswith("whsec_") and len(secret) > 40
    stored = Endpoint.objects.get()
    assert secret.encode() not in bytes(stored.secret_token)
    assert secrets_in_force(endpoint=stored) == [secret]


def test_only_an_administrator_manages_webhooks(buyer, buyer_requester, private_targets):
    with pytest.raises(PermissionDenied, match="Only an administrator of Helix Labs"):
        subscribe(buyer_requester, "https://hooks.example.com/cb", Event.BID_SUBMITTED)
    endpoint, _ = subscribe(buyer, "https://hooks.example.com/cb", Event.BID_SUBMITTED)
    with pytest.raises(PermissionDenied):
        endpoint_rotate_secret(endpoint=endpoint, user=buyer_requester.user)
    with pytest.raises(PermissionDenied):
        endpoint_delete(endpoint=endpoint, user=buyer_requester.user)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://hooks.example.com/cb", "must start with https://"),
        ("https://127.0.0.1:8000/cb", "loopback"),
        ("https://10.0.0.7/cb", "private address"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://localhost/cb", "local name"),
        ("https://metadata.google.internal/cb", "local name"),
        ("https://exa mple.com/hook", "“exa mple.com” is not a valid host name: it holds a space"),
        ("https://bad_host!.com/", "“bad_host!.com” is not a valid host name: it holds “!”"),
    ],
)
def test_production_refuses_local_targets_naming_the_field(buyer, url, message):
    with pytest.raises(ValidationError) as refused:
        subscribe(buyer, url, Event.BID_SUBMITTED)
    assert message in " ".join(refused.value.message_dict["url"])
    assert not Endpoint.objects.exists()


def test_events_and_the_pagerduty_key_are_checked(buyer):
    with pytest.raises(ValidationError) as refused:
        subscribe(buyer, "https://events.pagerduty.com/v2/enqueue", payload_format="pagerduty")
    errors = refused.value.message_dict
    assert errors["events"] == ["Choose at least one event to send."]
    assert errors["routing_key"] == [
        "PagerDuty needs the integration (routing) key of its service."
    ]
    with pytest.raises(ValidationError, match="Unknown events: nonsense"):
        subscribe(buyer, "https://events.pagerduty.com/v2/enqueue", "nonsense")


def test_a_rotation_keeps_the_old_secret_signing_for_the_grace_period(buyer, private_targets):
    endpoint, old = subscribe(buyer, "https://hooks.example.com/cb", Event.BID_SUBMITTED)
    new = endpoint_rotate_secret(endpoint=endpoint, user=buyer.user)
    endpoint.refresh_from_db()
    assert secrets_in_force(endpoint=endpoint) == [new, old]
    assert secrets_in_force(endpoint=endpoint, now=endpoint.previous_secret_until) == [new]


def test_each_change_is_audited_for_the_organisation_without_secret_or_path(buyer, settings):
    endpoint, secret = subscribe(buyer, SLACK, Event.INCIDENT_OPENED, payload_format="slack")
    endpoint_update(
        endpoint=endpoint,
        user=buyer.user,
        url=SLACK,
        events=[Event.INCIDENT_OPENED, Event.CLOCK_WARNING],
        active=False,
    )
    new = endpoint_rotate_secret(endpoint=endpoint, user=buyer.user)
    endpoint_delete(endpoint=endpoint, user=buyer.user)
    entries = list(AuditEntry.objects.filter(obj_key=f"org:{buyer.org.pk}").order_by("seq"))
    assert [e.action for e in entries] == [
        "webhook.create",
        "webhook.edit",
        "webhook.rotate",
        "webhook.delete",
    ]
    assert entries[1].after["events"] == ["incident_opened", "clock_warning"]
    assert entries[1].after["active"] is False
    recorded = repr([(e.before, e.after) for e in entries])
    assert "hooks.slack.com" in recorded
    assert "SECRETPATH" not in recorded and secret not in recorded and new not in recorded
    assert all(e.buyer_org_id == buyer.org.pk and e.provider_org_id is None for e in entries)


def test_the_pagerduty_key_is_kept_encrypted_and_never_shown_again(buyer):
    url, key = "https://events.pagerduty.com/v2/enqueue", "R0utingKey" * 3
    endpoint, _ = subscribe(
        buyer, url, Event.INCIDENT_OPENED, payload_format="pagerduty", routing_key=f" {key} "
    )
    stored = Endpoint.objects.get()
    assert key.encode() not in bytes(stored.routing_key_token)
    assert routing_key(endpoint=stored) == key
    page = buyer.client().get(reverse("webhooks:detail", args=[endpoint.public_id]))
    assert page.status_code == 200 and key not in page.content.decode()
    # Saved without a key: the stored one stays. With one: it replaces it.
    kept = {"url": url, "events": [Event.INCIDENT_OPENED], "active": True, "routing_key": ""}
    endpoint_update(endpoint=stored, user=buyer.user, **kept)
    assert routing_key(endpoint=Endpoint.objects.get()) == key
    endpoint_update(endpoint=stored, user=buyer.user, **{**kept, "routing_key": "NEWKEY"})
    assert routing_key(endpoint=Endpoint.objects.get()) == "NEWKEY"
    edits = AuditEntry.objects.filter(action="webhook.edit").order_by("seq")
    assert [e.after["routing_key_replaced"] for e in edits] == [False, True]
    recorded = repr([(e.before, e.after) for e in edits])
    assert "NEWKEY" not in recorded and key not in recorded


def test_the_service_sends_an_organisation_only_what_its_kind_is_sent(buyer, provider):
    """The rule the page's checkboxes and the API share: a buyer is never told of an award,
    a provider never of a bid submitted, whoever calls the service."""
    url = "https://hooks.example.com/cb"
    with pytest.raises(ValidationError) as refused:
        subscribe(buyer, url, Event.INCIDENT_OPENED, Event.AWARD, Event.COMPLIANCE_EXPIRING)
    assert refused.value.message_dict == {
        "events": ["A buyer organisation is not sent these events: award, compliance_expiring."]
    }
    endpoint, _ = subscribe(provider, url, Event.AWARD, Event.COMPLIANCE_EXPIRING)
    with pytest.raises(ValidationError, match="A provider organisation is not sent these events"):
        endpoint_update(
            endpoint=endpoint, user=provider.user, url=url, events=["bid_submitted"], active=True
        )
    assert Endpoint.objects.get().events == ["award", "compliance_expiring"]


def test_a_provider_hears_of_an_expiring_compliance_document_by_webhook(
    provider, settings, tmp_path
):
    settings.COMPLIANCE_REMINDER_DAYS = [30]
    settings.MEDIA_ROOT = tmp_path / "media"
    page = provider.client().post(
        reverse("webhooks:list"),
        {"url": "https://hooks.example.com/cb", "payload_format": "generic",
         "events": ["compliance_expiring"]},
    )  # fmt: skip
    assert page.status_code == 200 and Endpoint.objects.get().events == ["compliance_expiring"]
    file_iso27001(provider, expires_in_days=20)
    assert send_expiry_reminders() == 1
    (delivery,) = Delivery.objects.select_related("event")
    assert delivery.event.event_type == "compliance_expiring"
    assert delivery.event.payload["data"]["subject"] == "ISO/IEC 27001 expires in 20 days"
