"""The join page of a supplier invitation is open to anyone holding a link, so it counts per
client address: sign-up tries (SUPPLIER_JOIN_RATE) and links whose signature does not hold
(SUPPLIER_JOIN_BAD_LINK_RATE). Past either, the page answers 429 in words with Retry-After,
keeps what was typed, and other addresses go on as before."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bids.models import SupplierInvitation
from bids.services import supplier_invite
from bids.services.onboarding import token_for
from orgs.models import Organization
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def join_url(buyer):
    req = CapacityRequestFactory(buyer=buyer.org, title="16 × H200, EU")
    invitation = supplier_invite(
        capacity_request=req, user=buyer.user, email="bea@borealis.example"
    )
    return reverse("bids:supplier-join", args=[token_for(invitation)])


def _from(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def test_sign_up_tries_past_the_rate_are_refused_keeping_what_was_typed(settings, join_url):
    settings.SUPPLIER_JOIN_RATE = "3/hour"
    guesser = _from("203.0.113.7")
    typed = {
        "organization_name": "Borealis GPU",
        "username": "bea",
        "email": "bea@borealis.example",
        "password1": "pw-one",
        "password2": "pw-two",
    }
    for _ in range(3):
        assert guesser.post(join_url, typed).status_code == 200  # the form's own errors
    refused = guesser.post(join_url, typed)
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600
    html = refused.content.decode()
    assert "Too many sign-up attempts from your network address. Wait" in html
    assert 'value="Borealis GPU"' in html and "pw-one" not in html
    assert not Organization.objects.filter(name="Borealis GPU").exists()
    # Reading the page is not a try; another address is not held back.
    assert guesser.get(join_url).status_code == 200
    typed["password1"] = typed["password2"] = "a long enough passphrase 42"
    assert _from("198.51.100.4").post(join_url, typed).status_code == 302
    assert Organization.objects.filter(name="Borealis GPU").exists()


def test_links_that_do_not_hold_past_the_rate_stop_every_link_from_that_address(settings, join_url):
    settings.SUPPLIER_JOIN_BAD_LINK_RATE = "2/hour"
    guesser = _from("203.0.113.8")
    for guess in ("abc", "abd"):
        page = guesser.get(reverse("bids:supplier-join", args=[guess]))
        assert page.status_code == 410 and "This invitation link is not valid" in page.text
    third = guesser.get(reverse("bids:supplier-join", args=["abe"]))
    assert third.status_code == 429 and "Too many invitation links that do not work" in third.text
    assert guesser.get(join_url).status_code == 429  # a genuine link too, for the period
    assert _from("198.51.100.5").get(join_url).status_code == 200


def test_a_genuine_link_that_expired_is_never_counted_as_a_guess(settings, join_url):
    settings.SUPPLIER_JOIN_BAD_LINK_RATE = "1/hour"
    SupplierInvitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    reader = _from("203.0.113.9")
    for _ in range(3):
        page = reader.get(join_url)
        assert page.status_code == 410 and "This invitation expired on" in page.text
