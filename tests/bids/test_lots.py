"""Lots on a request and lot offers on a bid: the services' rules, their words and their trail."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEntry
from bids import services
from bids.choices import RequestStatus
from bids.models import BidRevision, Lot
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

LOT = {"name": "Pre-training", "nodes": 32, "gpus_per_node": 8}


@pytest.fixture
def draft(buyer):
    return CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)


def test_a_draft_gains_numbered_lots_and_each_write_is_audited(draft, buyer):
    first = services.lot_add(capacity_request=draft, user=buyer.user, data=LOT)
    second = services.lot_add(
        capacity_request=draft,
        user=buyer.user,
        data={**LOT, "name": "Fine-tuning", "nodes": 16, "divisible": True, "min_block_nodes": 4},
    )
    assert (first.number, second.number, second.gpu_count) == (1, 2, 128)
    services.lot_update(lot=second, user=buyer.user, data={"nodes": 12})
    services.lot_remove(lot=first, user=buyer.user)
    assert list(draft.lots.values_list("number", "name", "nodes")) == [(1, "Fine-tuning", 12)]
    entries = AuditEntry.objects.filter(request_id=draft.pk).order_by("seq")
    assert [e.action for e in entries] == [
        "request.lot_add",
        "request.lot_add",
        "request.lot_edit",
        "request.lot_remove",
    ]
    assert (entries[2].before, entries[2].after) == ({"nodes": 16}, {"nodes": 12})


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"divisible": True}, "min_block_nodes", "Give the minimum block in nodes"),
        ({"min_block_nodes": 4}, "min_block_nodes", "An indivisible lot goes whole"),
        ({"divisible": True, "min_block_nodes": 40}, "min_block_nodes", "larger than the lot's"),
        ({"region": "apac"}, "region", "not one of the request's acceptable regions"),
        ({"nodes": 0}, "nodes", "greater than or equal to 1"),
    ],
)
def test_a_contradictory_lot_is_refused_on_its_field(draft, buyer, data, field, message):
    with pytest.raises(ValidationError) as caught:
        services.lot_add(capacity_request=draft, user=buyer.user, data={**LOT, **data})
    assert message in " ".join(caught.value.message_dict[field])
    assert not Lot.objects.exists()


def test_a_lot_ending_before_it_starts_is_refused(draft, buyer):
    start = draft.reservation_start + timedelta(days=10)
    with pytest.raises(ValidationError, match="must end after it starts"):
        services.lot_add(
            capacity_request=draft,
            user=buyer.user,
            data={**LOT, "reservation_start": start, "reservation_end": start},
        )


def test_lots_are_fixed_once_published(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    lot = LotFactory(request=req)
    with pytest.raises(ValidationError, match="cannot be split into other lots"):
        services.lot_update(lot=lot, user=buyer.user, data={"nodes": 1})
    with pytest.raises(ValidationError, match="cannot be split into other lots"):
        services.lot_add(capacity_request=req, user=buyer.user, data=LOT)


def test_a_provider_cannot_touch_a_buyers_lots(draft, provider):
    with pytest.raises(ValidationError):
        services.lot_add(capacity_request=draft, user=provider.user, data=LOT)


@pytest.fixture
def lot_request(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    LotFactory(request=req, number=1, nodes=4)
    LotFactory(request=req, number=2, nodes=4, divisible=True, min_block_nodes=2)
    return req


def test_lot_offers_set_the_bids_nodes_and_weighted_price_and_freeze(lot_request, provider):
    bid = BidFactory(request=lot_request, provider=provider.org)
    services.bid_save_draft(
        bid=bid,
        user=provider.user,
        data={
            "lot_offers": [
                {"lot": 1, "price_per_gpu_hour": "2.00", "nodes": 4},
                {"lot": 2, "price_per_gpu_hour": "3.00", "nodes": 2},
            ],
            "bundles": [{"kind": "discount", "lots": [1, 2], "discount_pct": "4.5"}],
        },
    )
    bid.refresh_from_db()
    # 32 GPUs at 2.00 and 16 at 3.00: 2.333 per GPU-hour over 6 nodes.
    assert (bid.nodes, bid.price_per_gpu_hour) == (6, Decimal("2.333"))
    revision = services.bid_submit(bid=bid, user=provider.user)
    frozen = BidRevision.objects.get(pk=revision.pk)
    assert frozen.lot_offers == [
        {"lot": 1, "price_per_gpu_hour": "2.00", "nodes": 4},
        {"lot": 2, "price_per_gpu_hour": "3.00", "nodes": 2},
    ]
    assert frozen.bundles == [{"kind": "discount", "lots": [1, 2], "discount_pct": "4.5"}]
    entry = AuditEntry.objects.get(action="bid.draft")
    assert entry.after["bundles"] == frozen.bundles


def test_bad_lot_offers_are_refused_on_their_field_and_nothing_is_stored(lot_request, provider):
    bid = BidFactory(request=lot_request, provider=provider.org)
    with pytest.raises(ValidationError) as caught:
        services.bid_save_draft(
            bid=bid,
            user=provider.user,
            data={
                "lot_offers": [{"lot": 1, "price_per_gpu_hour": "2", "nodes": 4}],
                "bundles": [{"kind": "all_or_nothing", "lots": [1, 5]}],
            },
        )
    assert caught.value.message_dict == {
        "bundles": ["Bundle 1: there is no lot 5 in this request."]
    }
    bid.refresh_from_db()
    assert bid.lot_offers == [] and bid.bundles == []


def test_a_bid_on_a_lot_request_needs_an_offer_to_submit(lot_request, provider):
    bid = BidFactory(request=lot_request, provider=provider.org)
    with pytest.raises(ValidationError) as caught:
        services.bid_submit(bid=bid, user=provider.user)
    assert caught.value.message_dict["lot_offers"] == [
        "Make an offer on at least one lot before submitting."
    ]


def test_a_request_without_lots_takes_no_lot_offers_and_bids_as_before(provider):
    bid = BidFactory(provider=provider.org)
    with pytest.raises(ValidationError, match="This request has no lots"):
        services.bid_save_draft(
            bid=bid,
            user=provider.user,
            data={"lot_offers": [{"lot": 1, "price_per_gpu_hour": "2", "nodes": 2}]},
        )
    revision = services.bid_submit(bid=bid, user=provider.user)
    assert (revision.nodes, revision.price_per_gpu_hour, revision.lot_offers) == (
        2,
        Decimal("2.400"),
        [],
    )
