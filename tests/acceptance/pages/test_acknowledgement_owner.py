"""The provider names its incident owner when it acknowledges; both parties see who it is."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from acceptance.selectors.fixtures import acknowledgement_state
from acceptance.services import acknowledgement_submit
from contracts.services import terms_update

pytestmark = pytest.mark.django_db


def _ack_data(**extra: str) -> dict[str, str]:
    return {
        "status": "accepted",
        "exc-TOTAL_FORMS": "3",
        "exc-INITIAL_FORMS": "0",
        **extra,
    }


def test_the_page_refuses_an_acknowledgement_that_names_no_owner(fx, provider):
    url = reverse("acceptance:acknowledge", args=[fx.bid.pk])
    page = provider.client().get(url).content.decode()
    assert 'name="provider_owner_name"' in page and "leave your side's owner to you" in page
    response = provider.client().post(url, _ack_data(provider_owner_contact="noc@northwind"))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert errors["provider_owner_name"] == [
        "Name your incident owner: the person the buyer calls when a run fails."
    ]
    assert 'value="noc@northwind"' in response.content.decode()
    assert acknowledgement_state(bid=fx.bid).ack is None


def test_the_named_owner_is_recorded_and_shown_to_buyer_and_provider(fx, provider, buyer):
    url = reverse("acceptance:acknowledge", args=[fx.bid.pk])
    data = _ack_data(provider_owner_name="Nils Berg", provider_owner_contact="+47 555 0100")
    assert provider.client().post(url, data).status_code == 302
    ack = acknowledgement_state(bid=fx.bid).ack
    assert (ack.provider_owner_name, ack.provider_owner_contact) == ("Nils Berg", "+47 555 0100")
    for client in (buyer.client(), provider.client()):
        bid_page = client.get(reverse("bids:bid-detail", args=[fx.bid.pk])).content.decode()
        assert "Provider's incident owner: <strong>Nils Berg</strong> · +47 555 0100" in bid_page
    request_page = buyer.client().get(reverse("bids:request-detail", args=[fx.request.pk]))
    row = request_page.content.decode().split('id="acknowledgements"')[1]
    assert "Nils Berg · +47 555 0100" in row
    # Acknowledging again starts from the owner named last time.
    again = provider.client().get(url).content.decode()
    assert 'value="Nils Berg"' in again


def test_an_owner_the_terms_already_name_is_prefilled_and_kept(fx, buyer, provider):
    terms_update(
        terms=fx.terms,
        user=buyer.user,
        data={"provider_owner_name": "Northwind NOC", "provider_owner_contact": "noc@nw.example"},
    )
    url = reverse("acceptance:acknowledge", args=[fx.bid.pk])
    page = provider.client().get(url).content.decode()
    assert 'value="Northwind NOC"' in page and "keep them or name someone else" in page
    # Cleared fields are fine here: the terms' owner stands.
    assert provider.client().post(url, _ack_data()).status_code == 302
    ack = acknowledgement_state(bid=fx.bid).ack
    assert (ack.provider_owner_name, ack.provider_owner_contact) == (
        "Northwind NOC",
        "noc@nw.example",
    )


@pytest.mark.parametrize(
    ("name", "contact", "field", "words"),
    [
        ("", "", "provider_owner_name", "Name your incident owner"),
        ("Nils Berg", "", "provider_owner_contact", "Give your incident owner's contact"),
        ("N" * 121, "x@y", "provider_owner_name", "Keep it to 120 characters"),
    ],
)
def test_the_service_refuses_a_missing_or_oversized_owner_on_its_field(
    fx, provider, name, contact, field, words
):
    with pytest.raises(ValidationError) as info:
        acknowledgement_submit(
            bid=fx.bid,
            user=provider.user,
            status="accepted",
            provider_owner_name=name,
            provider_owner_contact=contact,
        )
    assert words in info.value.message_dict[field][0]


def test_a_caller_without_an_owner_form_names_the_acknowledging_user(fx, provider):
    ack = acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    assert (ack.provider_owner_name, ack.provider_owner_contact) == ("nora", provider.user.email)
