"""The webhook pages: the secret shown once, a refused form keeping what was typed, and the
delivery log with every attempt, its query count the same for few deliveries as for many."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from notices.choices import Event
from notices.services import notify_members
from tests.webhooks.conftest import subscribe
from webhooks.models import Delivery, Endpoint
from webhooks.services import delivery_attempt

pytestmark = pytest.mark.django_db

FORM = {
    "url": "https://hooks.example.com/cb",
    "payload_format": "generic",
    "description": "On-call relay",
    "events": ["incident_opened", "clock_warning"],
}


def test_creating_shows_the_secret_once_and_never_caches_it(buyer):
    client = buyer.client()
    response = client.post(reverse("webhooks:list"), FORM)
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    html = response.content.decode()
    secret = html.split('id="webhook-secret">')[1].split("<")[0]
    assert secret.startswith("whsec_")
    endpoint = Endpoint.objects.get()
    assert endpoint.events == ["incident_opened", "clock_warning"]
    again = client.get(reverse("webhooks:list")).content.decode()
    assert secret not in again and "hooks.example.com/cb" in again
    assert (
        secret
        not in client.get(reverse("webhooks:detail", args=[endpoint.public_id])).content.decode()
    )


def test_a_refused_endpoint_keeps_what_was_typed_and_says_why(buyer):
    typed = {**FORM, "url": "https://10.1.2.3/hook"}
    response = buyer.client().post(reverse("webhooks:list"), typed)
    html = response.content.decode()
    assert response.status_code == 200 and not Endpoint.objects.exists()
    assert "10.1.2.3 is a private address; deliveries go to public addresses only." in html
    assert 'value="https://10.1.2.3/hook"' in html and 'value="On-call relay"' in html
    assert 'value="clock_warning" id="id_events_' in html
    assert html.count(" checked>") == 2  # the attribute, not an event named pilot_checked


def test_a_buyer_is_offered_no_provider_only_event(buyer):
    response = buyer.client().post(reverse("webhooks:list"), {**FORM, "events": ["award"]})
    assert "Select a valid choice. award is not one of the available choices." in (
        response.content.decode()
    )
    assert not Endpoint.objects.exists()


def test_each_side_is_offered_the_events_its_kind_is_sent(buyer, provider):
    offered = {
        name: role.client().get(reverse("webhooks:list")).content.decode()
        for name, role in (("buyer", buyer), ("provider", provider))
    }
    assert 'value="compliance_expiring"' in offered["provider"]
    assert 'value="compliance_expiring"' not in offered["buyer"]
    for html in offered.values():
        assert 'value="membership"' in html and 'value="incident_opened"' in html
    assert 'value="bid_submitted"' in offered["buyer"] and 'value="award"' in offered["provider"]
    assert 'value="award"' not in offered["buyer"]


def test_too_long_a_url_is_refused_in_the_form(buyer):
    response = buyer.client().post(
        reverse("webhooks:list"), {**FORM, "url": "https://a.example/" + "x" * 600}
    )
    assert "at most 500 characters" in response.content.decode()
    assert not Endpoint.objects.exists()


def test_an_invalid_edit_is_answered_400_with_the_input_kept(buyer):
    endpoint, _ = subscribe(buyer, "https://hooks.example.com/cb", Event.INCIDENT_OPENED)
    url = reverse("webhooks:detail", args=[endpoint.public_id])
    data = {"url": "ftp://files.example/x", "events": ["incident_opened"]}
    response = buyer.client().post(url, data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "The URL must start with https://." in html and 'value="ftp://files.example/x"' in html
    endpoint.refresh_from_db()
    assert endpoint.url == "https://hooks.example.com/cb"


def _deliveries(buyer, count, first=0):
    for n in range(first, first + count):
        notify_members(event=Event.BIDS_OPENED, organization=buyer.org, subject=f"Opened {n}",
                       body="b", path="/", key=f"a:{n}")  # fmt: skip
    for delivery in Delivery.objects.filter(attempts=0):
        delivery_attempt(delivery_id=delivery.pk)


def test_the_log_shows_every_attempt_in_the_same_queries_for_2_or_20(buyer, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    endpoint, _ = subscribe(buyer, "http://127.0.0.1:9/closed", Event.BIDS_OPENED)
    client = buyer.client()
    url = reverse("webhooks:detail", args=[endpoint.public_id])
    _deliveries(buyer, 2)
    with CaptureQueriesContext(connection) as few:
        html = client.get(url).content.decode()
    assert "Attempt 1: <strong>refused</strong>, no response" in html
    assert "ConnectionRefusedError" in html and "Redeliver" in html
    _deliveries(buyer, 18, first=2)
    with CaptureQueriesContext(connection) as many:
        html = client.get(url).content.decode()
    assert html.count('class="attempt"') == 20
    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_the_members_page_leads_to_the_webhooks(buyer):
    html = buyer.client().get(reverse("orgs:members")).content.decode()
    assert reverse("webhooks:list") in html
