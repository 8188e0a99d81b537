"""Named incident owners on both sides, and a save that changes nothing stays a no-op."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from acceptance.selectors.fixtures import acknowledgement_state
from acceptance.services import acknowledgement_submit
from acceptance.services.award import request_award
from annexes.document.present import contract_document
from annexes.document.snapshot import contract_snapshot
from bids.services import request_close
from contracts.services import terms_create, terms_update
from tests.contracts.test_terms_pages import _post_data

pytestmark = pytest.mark.django_db


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_new_terms_name_the_buyer_who_set_them_as_its_owner(world, buyer):
    terms = terms_create(capacity_request=world.request, user=buyer.user, template="training-24x7")
    assert terms.buyer_owner_name == "alice"
    assert terms.buyer_owner_contact == buyer.user.email
    assert terms.revisions.get().snapshot["buyer_owner_contact"] == buyer.user.email


def test_resetting_to_a_template_keeps_the_named_owners(fx, buyer):
    terms_update(
        terms=fx.terms,
        user=buyer.user,
        data={"buyer_owner_name": "Dana Ops", "buyer_owner_contact": "dana@helix.example"},
    )
    terms = terms_create(capacity_request=fx.request, user=buyer.user, template="business-hours")
    assert (terms.buyer_owner_name, terms.buyer_owner_contact) == (
        "Dana Ops",
        "dana@helix.example",
    )
    assert terms.coverage_timezone == "Europe/Berlin"


@pytest.mark.parametrize(
    ("field", "words"),
    [
        ("buyer_owner_name", "Name the buyer's incident owner"),
        ("buyer_owner_contact", "Give the buyer's incident owner's contact"),
    ],
)
def test_the_service_refuses_terms_without_the_buyers_owner(fx, buyer, field, words):
    with pytest.raises(ValidationError) as info:
        terms_update(terms=fx.terms, user=buyer.user, data={field: "  "})
    assert words in info.value.message_dict[field][0]
    fx.terms.refresh_from_db()
    assert fx.terms.version == 1


def test_the_form_refuses_an_empty_buyer_owner_on_the_field(fx, buyer):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    data = _post_data(fx.terms, buyer_owner_name="", buyer_owner_contact="", spares="In hall B")
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "Name the buyer's incident owner" in errors["buyer_owner_name"][0]
    assert "contact" in errors["buyer_owner_contact"][0]
    assert "In hall B" in response.content.decode()
    fx.terms.refresh_from_db()
    assert fx.terms.version == 1 and fx.terms.buyer_owner_name == "alice"


def test_saving_unchanged_terms_keeps_the_version_and_the_acknowledgements(fx, buyer, provider):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    response = buyer.client().post(url, _post_data(fx.terms), follow=True)
    assert "Nothing changed; version 1 stays current." in _messages(response)
    fx.terms.refresh_from_db()
    assert fx.terms.version == 1 and fx.terms.revisions.count() == 1
    assert not acknowledgement_state(bid=fx.bid).stale


def test_a_real_change_still_says_saved_with_the_new_version(fx, buyer):
    url = reverse("contracts:terms-edit", args=[fx.request.pk])
    data = _post_data(fx.terms, maintenance_notice_hours=96)
    response = buyer.client().post(url, data, follow=True)
    assert "Handoff terms saved (version 2)." in _messages(response)


def test_each_party_sees_the_provider_owner_named_in_the_acknowledgement(
    fx, buyer, provider, rival_provider
):
    acknowledgement_submit(
        bid=fx.bid,
        user=provider.user,
        status="accepted",
        provider_owner_name="Nils Berg",
        provider_owner_contact="oncall@northwind.example",
    )
    acknowledgement_submit(
        bid=fx.rival_bid,
        user=rival_provider.user,
        status="accepted",
        provider_owner_name="Rita Duty",
        provider_owner_contact="+44 20 5550 0000",
    )
    url = reverse("contracts:terms-detail", args=[fx.request.pk])
    buyer_html = buyer.client().get(url).content.decode()
    owners = buyer_html[buyer_html.index('id="provider-owners"') :]
    owners = owners[: owners.index("</dd>")]
    assert "Nils Berg · oncall@northwind.example" in owners and "Rita Duty" in owners
    assert "named by the provider" not in buyer_html
    provider_html = provider.client().get(url).content.decode()
    assert "Nils Berg · oncall@northwind.example" in provider_html
    assert "Rita Duty" not in provider_html  # a rival's owner is not the provider's business


def test_the_contract_annex_prints_the_provider_owner_from_the_acknowledgement(fx, buyer, provider):
    acknowledgement_submit(
        bid=fx.bid,
        user=provider.user,
        status="accepted",
        provider_owner_name="Nils Berg",
        provider_owner_contact="oncall@northwind.example",
    )
    request_close(capacity_request=fx.request, user=buyer.user, confirmed=True)
    request_award(capacity_request=fx.request, bid=fx.bid, user=buyer.user)
    snap = contract_snapshot(capacity_request=fx.request)
    assert snap["acknowledgement"]["provider_owner_name"] == "Nils Berg"
    document = contract_document(snap, sha256="0" * 64, version=1)
    terms = next(s for s in document["sections"] if s["id"] == "terms")
    rows = dict(row for block in terms["blocks"] if block["type"] == "kv" for row in block["rows"])
    assert rows["Provider's incident owner"] == "Nils Berg"
    assert rows["Provider's contact"] == "oncall@northwind.example"
    assert rows["Buyer's incident owner"] == "alice"
