"""Addenda: the buyer of an open request publishes them, confirmed, numbered 1, 2, ... per
request; they never change; every invitee sees the same list and each invited provider's
members get one notice that names no other invitee."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from audit.selectors import entries_for
from bids import selectors, services
from bids.choices import RequestStatus
from bids.models import Addendum, CapacityRequest
from bids.models.addenda import FrozenAddendumError
from core.lifecycle import MoveRefused
from notices.choices import Event
from notices.models import Notice
from orgs.choices import OrgKind
from tests.api.v1.conftest import token_client
from tests.factories import CapacityRequestFactory, MembershipFactory, OrganizationFactory

pytestmark = pytest.mark.django_db

TEXT = "Site visits are possible on 3 March.\nBring photo ID."


def _publish(req: CapacityRequest, user, title: str = "Site visit", text: str = TEXT) -> Addendum:
    return services.addendum_publish(
        capacity_request=req, user=user, title=title, text=text, confirmed=True
    )


def _section(html: str) -> str:
    start = html.index('id="addenda"')
    return html[start : html.index("</section>", start)]


def _page(role, req: CapacityRequest) -> str:
    response = role.client().get(reverse("bids:request-detail", args=[req.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_addenda_are_numbered_per_request(world, buyer):
    first = _publish(world.request, buyer.user)
    second = _publish(world.request, buyer.user, title="Correction to addendum 1")
    other = CapacityRequestFactory(buyer=buyer.org)
    assert (first.number, second.number) == (1, 2)
    assert _publish(other, buyer.user).number == 1
    assert second.published_by == buyer.user and second.published_at is not None
    entry = (
        AuditEntry.objects.filter(action="request.addendum", obj_key=f"request:{world.request.pk}")
        .order_by("seq")
        .last()
    )
    assert entry.after == {"number": 2, "version": 3, "title": "Correction to addendum 1"}


def test_a_published_addendum_never_changes(world, buyer):
    addendum = _publish(world.request, buyer.user)
    addendum.text = "Something else."
    with pytest.raises(FrozenAddendumError):
        addendum.save()
    with pytest.raises(FrozenAddendumError):
        addendum.delete()
    with pytest.raises(FrozenAddendumError):
        Addendum.objects.filter(pk=addendum.pk).update(text="Something else.")
    with pytest.raises(FrozenAddendumError):
        Addendum.objects.filter(pk=addendum.pk).delete()
    assert Addendum.objects.get(pk=addendum.pk).text == TEXT


def test_an_addendum_needs_its_confirmation(world, buyer):
    with pytest.raises(MoveRefused) as refused:
        services.addendum_publish(
            capacity_request=world.request, user=buyer.user, title="A", text="B."
        )
    assert refused.value.status_code == 400 and "confirm" in refused.value.message_dict
    assert not Addendum.objects.exists() and mail.outbox == []


@pytest.mark.parametrize(
    ("title", "text", "field", "words"),
    [
        ("", TEXT, "title", "Give the addendum a title"),
        ("   ", TEXT, "title", "Give the addendum a title"),
        ("x" * 121, TEXT, "title", "120 characters; it has 121"),
        ("Site visit", "", "text", "Write what the addendum says"),
        ("Site visit", "y" * 20_001, "text", "20,000 characters; it has 20,001"),
    ],
)
def test_a_bad_title_or_text_is_named(world, buyer, title, text, field, words):
    with pytest.raises(ValidationError) as refused:
        services.addendum_publish(
            capacity_request=world.request, user=buyer.user, title=title, text=text, confirmed=True
        )
    assert words in refused.value.message_dict[field][0]
    assert not Addendum.objects.exists()


def test_only_the_buyer_publishes_an_addendum(world, provider, buyer_requester):
    with pytest.raises(MoveRefused) as refused:
        _publish(world.request, provider.user)
    assert refused.value.status_code == 403
    # Every role of the buyer's team may: a requester too.
    assert _publish(world.request, buyer_requester.user).number == 1


@pytest.mark.parametrize("status", [RequestStatus.CLOSED, RequestStatus.CANCELLED])
def test_an_addendum_only_while_bidding_is_open(world, buyer, status):
    CapacityRequest.objects.filter(pk=world.request.pk).update(status=status)
    world.request.refresh_from_db()
    with pytest.raises(MoveRefused) as refused:
        _publish(world.request, buyer.user)
    assert refused.value.status_code == 409 and "cannot be amended" in str(refused.value)


def test_no_addendum_once_the_deadline_passed(world, buyer):
    past = timezone.now() - timedelta(minutes=1)
    CapacityRequest.objects.filter(pk=world.request.pk).update(bid_deadline=past)
    world.request.refresh_from_db()
    with pytest.raises(MoveRefused) as refused:
        _publish(world.request, buyer.user)
    assert refused.value.status_code == 409 and "deadline has passed" in str(refused.value)


def test_every_invited_provider_hears_once_and_the_buyer_not(
    world, buyer, provider, rival_provider, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://bids.example.com"
    colleague = MembershipFactory(organization=provider.org).user
    with django_capture_on_commit_callbacks(execute=True):
        addendum = _publish(world.request, buyer.user)
    recipients = sorted(m.to[0] for m in mail.outbox)
    assert recipients == sorted([provider.user.email, colleague.email, rival_provider.user.email])
    assert buyer.user.email not in recipients
    link = f"https://bids.example.com/requests/{world.request.pk}/#addenda"
    for message in mail.outbox:
        assert message.subject == (
            f"[Clusterbid] Addendum 1 to “{world.request.title}”: Site visit"
        )
        assert link in message.body and "Bring photo ID." in message.body
    # Each provider's notice is its own, and names neither the other invitee nor its bid.
    for role, rival in ((provider, "Rival Cloud"), (rival_provider, "Northwind")):
        notice = Notice.objects.get(recipient=role.user, key=f"addendum:{addendum.pk}")
        assert notice.event == Event.ADDENDUM and notice.organization == role.org
        assert rival not in notice.subject + notice.body
    # The notice is written once: a rerun of the sender adds nothing.
    from bids.notices import addendum_notify

    addendum_notify(addendum=addendum)
    assert Notice.objects.filter(event=Event.ADDENDUM).count() == 3


def test_the_audit_entry_is_shared_with_every_invitee(world, buyer, provider, rival_provider):
    _publish(world.request, buyer.user)
    key = f"request:{world.request.pk}"
    for org in (buyer.org, provider.org, rival_provider.org):
        actions = [e.action for e in entries_for(org=org, obj_key=key)]
        assert "request.addendum" in actions


def test_every_invitee_sees_the_same_addenda_and_an_uninvited_provider_nothing(
    world, buyer, provider, rival_provider
):
    assert "No addendum has been published." in _section(_page(provider, world.request))
    _publish(world.request, buyer.user)
    _publish(world.request, buyer.user, title="Fabric", text="Rails are 400 Gb/s.")
    for role in (buyer, provider, rival_provider):
        section = _section(_page(role, world.request))
        assert "Addendum 1: Site visit" in section and "Addendum 2: Fabric" in section
        assert "Bring photo ID." in section
    # Only the buyer is offered the form.
    assert 'id="addendum-form"' in _section(_page(buyer, world.request))
    assert 'id="addendum-form"' not in _section(_page(provider, world.request))
    stranger = MembershipFactory(
        organization=OrganizationFactory(name="Stranger GPU", kind=OrgKind.PROVIDER)
    ).user
    from django.test import Client

    client = Client()
    client.force_login(stranger)
    response = client.get(reverse("bids:request-detail", args=[world.request.pk]))
    assert response.status_code == 404


def test_the_form_keeps_what_was_typed_on_an_error(world, buyer):
    url = reverse("bids:request-addendum", args=[world.request.pk])
    typed = "Rails are 400 Gb/s per GPU & the leaf switches are Quantum-2."
    response = buyer.client().post(url, {"title": "", "text": typed, "confirm": "on"})
    assert response.status_code == 200
    form = _section(response.content.decode())
    assert "Give the addendum a title" in form
    assert "Rails are 400 Gb/s per GPU &amp; the leaf switches are Quantum-2." in form
    unconfirmed = buyer.client().post(url, {"title": "Fabric", "text": typed})
    html = _section(unconfirmed.content.decode())
    assert "Confirmation required" in html and 'value="Fabric"' in html
    assert not Addendum.objects.exists()


def test_the_form_publishes_and_returns_to_the_list(world, buyer):
    url = reverse("bids:request-addendum", args=[world.request.pk])
    response = buyer.client().post(url, {"title": "Fabric", "text": TEXT, "confirm": "on"})
    assert response.status_code == 302 and response["Location"].endswith("#addenda")
    assert selectors.addendum_list(capacity_request=world.request).get().title == "Fabric"


def test_a_closed_request_offers_no_form_and_says_why(world, buyer):
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    section = _section(_page(buyer, world.request))
    assert 'id="addendum-form"' not in section
    response = buyer.client().post(
        reverse("bids:request-addendum", args=[world.request.pk]),
        {"title": "Fabric", "text": TEXT, "confirm": "on"},
        follow=True,
    )
    assert "A request that is closed cannot be amended." in response.content.decode()
    assert not Addendum.objects.exists()


def test_the_api_publishes_and_lists_addenda(world, buyer, provider, rival_provider):
    url = f"/api/v1/requests/{world.request.pk}/addenda/"
    alice = token_client(buyer.user)
    unconfirmed = alice.post(url, {"title": "Fabric", "text": TEXT}, format="json")
    assert unconfirmed.status_code == 400 and unconfirmed.json()["move"] == "addendum"
    assert "confirm" in unconfirmed.json()["errors"]
    no_title = alice.post(url, {"text": TEXT, "confirm": True}, format="json")
    assert no_title.status_code == 400 and "title" in no_title.json()["errors"]
    created = alice.post(url, {"title": "Fabric", "text": TEXT, "confirm": True}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["number"] == 1 and created.json()["text"] == TEXT
    refused = token_client(provider.user).post(
        url, {"title": "Mine", "text": TEXT, "confirm": True}, format="json"
    )
    assert refused.status_code == 404  # not the provider's request to write to
    for user in (buyer.user, provider.user, rival_provider.user):
        listed = token_client(user).get(url).json()
        assert [a["title"] for a in listed["results"]] == ["Fabric"]


def test_the_api_refuses_an_addendum_to_a_closed_request(world, buyer):
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    response = token_client(buyer.user).post(
        f"/api/v1/requests/{world.request.pk}/addenda/",
        {"title": "Fabric", "text": TEXT, "confirm": True},
        format="json",
    )
    assert response.status_code == 409 and response.json()["move"] == "addendum"


def test_the_request_page_costs_the_same_for_one_addendum_and_twelve(world, buyer, provider):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count(role) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = role.client().get(reverse("bids:request-detail", args=[world.request.pk]))
        assert response.status_code == 200
        return len(ctx.captured_queries)

    _publish(world.request, buyer.user)
    few = [count(role) for role in (buyer, provider)]
    for n in range(11):
        _publish(world.request, buyer.user, title=f"Clarification {n}")
    assert [count(role) for role in (buyer, provider)] == few
    assert _section(_page(provider, world.request)).count("Clarification") == 11
