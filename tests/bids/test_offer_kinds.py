"""Offer kinds by isolation on requests and bids: a request accepts one or more kinds, a bid of a
kind it refuses is stopped at the field (page and API), a MIG or time-sliced bid carries its
profile or replicas, and the comparison prices every kind per whole-device-equivalent hour."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from bids.models import bounds
from bids.services import bid_save_draft, bid_submit
from tests.api.v1.conftest import token_client
from tests.bids.test_service_envelope import form_data
from tests.evaluation.pages.conftest import score
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = pytest.mark.django_db

SLICED = {"isolation_class": "time_sliced", "time_slice_replicas": 4}


def _open_bid(provider: Any, **request: Any) -> Any:
    req = CapacityRequestFactory(status="open", **request)
    InvitationFactory(request=req, provider=provider.org)
    return BidFactory(request=req, provider=provider.org)


def test_the_page_refuses_a_kind_the_request_does_not_accept_and_keeps_what_was_typed(provider):
    bid = _open_bid(provider, accepted_offer_kinds=["whole_device", "mig"])
    data = form_data(bid, **SLICED, site="Oulu O3")
    response = provider.client().post(reverse("bids:bid-edit", args=[bid.pk]), data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "This bid offers time-sliced GPUs; the request accepts whole device or MIG." in html
    assert 'value="Oulu O3"' in html
    bid.refresh_from_db()
    assert bid.isolation_class == "whole_device" and bid.site == "Frankfurt"


def test_the_api_refuses_a_kind_the_request_does_not_accept_naming_the_field(provider):
    bid = _open_bid(provider)
    response = token_client(provider.user).patch(f"/api/v1/bids/{bid.pk}/", SLICED, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["isolation_class"] == [
        "This bid offers time-sliced GPUs; the request accepts whole device."
    ]


@pytest.mark.parametrize(
    ("terms", "field", "message"),
    [
        (
            {"isolation_class": "mig", "mig_profile": "3g.40gb"},
            "mig_profile",
            "H200 GPUs offer the MIG profiles 1g.18gb, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb, "
            "7g.141gb, not 3g.40gb.",
        ),
        (
            {"isolation_class": "mig", "mig_profile": "1g.18gb"},
            "isolation_class",
            "This bid offers MIG 1g.18gb, smaller than the smallest accepted profile 2g.35gb.",
        ),
        (
            {"mig_profile": "3g.71gb"},
            "mig_profile",
            "Only a MIG offer names a MIG profile: clear it, or offer MIG.",
        ),
        (
            {"time_slice_replicas": 4},
            "time_slice_replicas",
            "Only a time-sliced offer gives replicas per GPU: clear it, or offer time-sliced.",
        ),
    ],
)
def test_a_kind_and_its_specifics_must_agree(provider, terms, field, message):
    bid = _open_bid(
        provider, accepted_offer_kinds=["whole_device", "mig"], min_mig_profile="2g.35gb"
    )
    with pytest.raises(ValidationError) as exc:
        bid_save_draft(bid=bid, user=provider.user, data=terms)
    assert message in exc.value.message_dict[field]


def test_a_mig_draft_may_wait_for_its_profile_but_cannot_be_submitted_without_it(provider):
    bid = _open_bid(provider, accepted_offer_kinds=["mig"])
    bid_save_draft(bid=bid, user=provider.user, data={"isolation_class": "mig"})
    with pytest.raises(ValidationError) as exc:
        bid_submit(bid=bid, user=provider.user)
    assert exc.value.message_dict["mig_profile"] == ["A MIG offer names its MIG profile."]
    bid_save_draft(bid=bid, user=provider.user, data={"mig_profile": "3g.71gb"})
    revision = bid_submit(bid=bid, user=provider.user)
    assert (revision.isolation_class, revision.mig_profile) == ("mig", "3g.71gb")


def test_the_bid_form_lists_the_mig_profiles_of_the_requested_gpu(provider):
    bid = _open_bid(provider, accepted_offer_kinds=["mig"])
    html = provider.client().get(reverse("bids:bid-edit", args=[bid.pk])).content.decode()
    assert "H200: 1g.18gb, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb." in html


def test_a_new_draft_starts_at_the_strongest_kind_the_request_accepts(provider):
    from bids.services import bid_start

    req = CapacityRequestFactory(status="open", accepted_offer_kinds=["time_sliced", "mig"])
    InvitationFactory(request=req, provider=provider.org)
    bid = bid_start(capacity_request=req, provider=provider.org, user=provider.user)
    assert bid.isolation_class == "mig"


def test_the_request_page_says_which_kinds_it_accepts(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org, accepted_offer_kinds=["whole_device", "mig"], min_mig_profile="3g.71gb"
    )
    html = buyer.client().get(reverse("bids:request-detail", args=[req.pk])).content.decode()
    assert "Whole device, MIG partition (MIG from 3g.71gb)" in html


def test_a_new_request_accepts_whole_devices_until_the_buyer_says_otherwise(buyer):
    form = buyer.client().get(reverse("bids:request-create")).context["form"]
    assert form["accepted_offer_kinds"].value() == ["whole_device"]


def test_a_request_names_at_least_one_kind_and_a_smallest_profile_only_with_mig(buyer):
    from tests.bids.test_form_bounds import request_data

    url = reverse("bids:request-create")
    response = buyer.client().post(url, request_data(accepted_offer_kinds=[]))
    assert response.context["form"].errors["accepted_offer_kinds"] == [
        "Choose at least one offer kind you accept."
    ]
    response = buyer.client().post(url, request_data(min_mig_profile="3g.71gb"))
    assert response.context["form"].errors["min_mig_profile"] == [
        "Accept MIG offers, or leave the smallest profile empty."
    ]


def _kinds_world(world: Any, provider: Any, rival_provider: Any) -> Any:
    """The worked example of docs/scoring.md 1c, two of its bids on the shared world."""
    req = world.request
    req.accepted_offer_kinds = ["whole_device", "mig", "time_sliced"]
    req.save(update_fields=["accepted_offer_kinds"])
    mig = {"isolation_class": "mig", "mig_profile": "3g.71gb", "price_per_gpu_hour": Decimal("1.4")}
    bid_save_draft(bid=world.bid, user=provider.user, data=mig)
    bid_submit(bid=world.bid, user=provider.user)
    sliced = {**SLICED, "price_per_gpu_hour": Decimal("0.8")}
    bid_save_draft(bid=world.rival_bid, user=rival_provider.user, data=sliced)
    bid_submit(bid=world.rival_bid, user=rival_provider.user)
    run = score(req)
    assert run.status == "done", run.error
    return world


def _row(html: str, key: str) -> str:
    start = html.index(f'<tr data-row="{key}">')
    return html[start : html.index("</tr>", start)]


def test_the_comparison_prices_every_kind_per_whole_device_hour(
    world, buyer, provider, rival_provider
):
    _kinds_world(world, provider, rival_provider)
    url = reverse("evaluation:request-compare", args=[world.request.pk])
    html = buyer.client().get(url).content.decode()
    kind = _row(html, "offer_kind")
    assert "MIG 3g.71gb (3/7 of a GPU)" in kind
    assert "Time-sliced, 4 replicas per GPU (1/4 of a GPU, not isolated)" in kind
    # Ranked columns: the time-sliced bid first, cheaper per whole-device-equivalent hour.
    assert "<td>0.800</td><td>1.400</td>" in _row(html, "price_slice")
    # 0.80 x 4 = 3.200, the lower and so the better; 1.40 x 7 / 3 = 3.267, with how it was got
    price = _row(html, "price")
    assert price.index('<td class="best"><details><summary>3.200') < price.index("3.267</summary>")
    assert "1.4000 per slice-hour / 0.4286 of a GPU (MIG 3g.71gb (3/7 of a GPU))" in price
    assert "no isolation guarantee" in _row(html, "isolation")


def test_the_bid_page_and_the_api_show_the_slice_and_the_device_price(
    world, buyer, provider, rival_provider
):
    _kinds_world(world, provider, rival_provider)
    page = buyer.client().get(reverse("bids:bid-detail", args=[world.bid.pk])).content.decode()
    assert "3/7 of a GPU per slice" in page
    assert "Price per whole-device-equivalent hour (USD)</dt><dd>3.267" in page
    body = token_client(buyer.user).get(f"/api/v1/bids/{world.bid.pk}/").json()
    assert body["mig_profile"] == "3g.71gb"
    assert body["offer_kind"] == {
        "kind": "mig",
        "description": "MIG 3g.71gb (3/7 of a GPU)",
        "isolation": "memory, cache and compute slices isolated in hardware",
        "device_fraction": "3/7",
        "price_per_slice_hour": "1.400",
        "price_per_device_hour": "3.267",
    }


def test_one_replica_is_refused_saying_to_offer_a_whole_device(provider):
    bid = _open_bid(provider, accepted_offer_kinds=["whole_device", "time_sliced"])
    one = {"isolation_class": "time_sliced", "time_slice_replicas": 1}
    response = token_client(provider.user).patch(f"/api/v1/bids/{bid.pk}/", one, format="json")
    assert response.status_code == 400
    assert response.json()["errors"]["time_slice_replicas"] == [bounds.REPLICAS_TOO_FEW]
    page = provider.client().post(
        reverse("bids:bid-edit", args=[bid.pk]), form_data(bid, **one, site="Oulu O3")
    )
    html = page.content.decode()
    assert "one replica is the whole GPU: offer a whole device instead." in html
    assert 'value="Oulu O3"' in html
