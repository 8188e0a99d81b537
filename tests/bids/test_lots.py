"""Lots on a request and lot offers on a bid: the services' rules, their words and their trail."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from audit.models import AuditEntry
from bids import services
from bids.choices import RequestStatus
from bids.models import ApprovalAction, ApprovalPolicy, ApprovalRequest, BidRevision, Lot
from bids.services.approvals import approval_ask
from core.lifecycle import MoveRefused
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

LOT = {"name": "Pre-training", "nodes": 32, "gpus_per_node": 8}


@pytest.fixture
def draft(buyer):
    """384 GPUs: room for the 256-GPU pre-training lot and a 128-GPU one beside it."""
    return CapacityRequestFactory(
        buyer=buyer.org,
        draft=True,
        gpu_count=384,
        nodes=48,
    )


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
        ({"nodes": 0}, "nodes", "At least 1 node."),
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
    req = CapacityRequestFactory(buyer=buyer.org, gpu_count=64, nodes=8)
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


# The lots against their request ------------------------------------------------------------


@pytest.fixture
def sized(buyer, provider):
    """A 256-GPU draft (32 nodes × 8) its provider is invited to: ready to publish."""
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, gpu_count=256, nodes=32
    )
    services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
    return req


def test_a_lot_larger_than_the_whole_request_is_refused_on_nodes(buyer):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, gpu_count=128, nodes=16
    )
    with pytest.raises(ValidationError) as caught:
        services.lot_add(capacity_request=req, user=buyer.user, data=LOT)
    assert caught.value.message_dict["nodes"] == [
        "This lot has 32 nodes × 8 GPUs = 256 GPUs; the whole request asks for 128 GPUs."
    ]
    assert not Lot.objects.exists()
    lot = services.lot_add(capacity_request=req, user=buyer.user, data={**LOT, "nodes": 16})
    with pytest.raises(ValidationError, match="the whole request asks for 128 GPUs") as caught:
        services.lot_update(lot=lot, user=buyer.user, data={"gpus_per_node": 16})
    assert list(caught.value.message_dict) == ["nodes"]
    assert Lot.objects.get().gpus_per_node == 8
    assert not AuditEntry.objects.filter(action="request.lot_edit").exists()


def test_a_lot_dated_outside_the_requests_window_is_refused_on_that_date(draft, buyer):
    day = timedelta(days=1)
    with pytest.raises(ValidationError) as caught:
        services.lot_add(
            capacity_request=draft,
            user=buyer.user,
            data={
                **LOT,
                "reservation_start": draft.reservation_start - day,
                "reservation_end": draft.reservation_end + day,
            },
        )
    errors = caught.value.message_dict
    assert errors["reservation_start"] == [
        f"The lot cannot start before the request's reservation does "
        f"({draft.reservation_start:%-d %b %Y})."
    ]
    assert errors["reservation_end"] == [
        f"The lot cannot end after the request's reservation does "
        f"({draft.reservation_end:%-d %b %Y})."
    ]
    inside = services.lot_add(
        capacity_request=draft,
        user=buyer.user,
        data={**LOT, "reservation_start": draft.reservation_start + day},
    )
    with pytest.raises(ValidationError) as caught:
        services.lot_update(
            lot=inside, user=buyer.user, data={"reservation_end": draft.reservation_end + day}
        )
    assert list(caught.value.message_dict) == ["reservation_end"]


def test_lots_short_of_the_request_refuse_its_publish_and_say_how_to_fix(sized, buyer):
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 16})
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 8})
    with pytest.raises(ValidationError) as caught:
        services.request_publish(capacity_request=sized, user=buyer.user)
    assert caught.value.message_dict == {
        "lots": [
            "The lots add up to 192 GPUs; the request asks for 256. Add a lot for the other "
            "64 GPUs, or change the request's size."
        ]
    }
    sized.refresh_from_db()
    assert sized.status == RequestStatus.DRAFT and sized.published_at is None
    assert not AuditEntry.objects.filter(action="request.publish").exists()
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 8})
    services.request_publish(capacity_request=sized, user=buyer.user)
    assert sized.status == RequestStatus.OPEN


def test_shrinking_the_request_under_its_lots_is_caught_at_publish(sized, buyer):
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 16})
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 16})
    services.request_update(
        capacity_request=sized, user=buyer.user, data={"gpu_count": 128, "nodes": 16}
    )
    with pytest.raises(ValidationError) as caught:
        services.request_publish(capacity_request=sized, user=buyer.user)
    assert caught.value.message_dict == {
        "lots": [
            "The lots add up to 256 GPUs; the request asks for 128. Make the lots 128 GPUs "
            "smaller (or remove one), or change the request's size."
        ]
    }
    services.request_update(
        capacity_request=sized, user=buyer.user, data={"gpu_count": 64, "nodes": 8}
    )
    with pytest.raises(ValidationError) as caught:
        services.request_publish(capacity_request=sized, user=buyer.user)
    assert caught.value.messages[:2] == [
        "Lot 1: This lot has 16 nodes × 8 GPUs = 128 GPUs; the whole request asks for 64 GPUs.",
        "Lot 2: This lot has 16 nodes × 8 GPUs = 128 GPUs; the whole request asks for 64 GPUs.",
    ]


def test_moving_the_requests_window_off_a_lots_dates_is_caught_at_publish(sized, buyer):
    end = sized.reservation_end
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "reservation_end": end})
    services.request_update(
        capacity_request=sized, user=buyer.user, data={"reservation_end": end - timedelta(days=7)}
    )
    with pytest.raises(ValidationError) as caught:
        services.request_publish(capacity_request=sized, user=buyer.user)
    assert caught.value.message_dict["lots"] == [
        f"Lot 1: The lot cannot end after the request's reservation does "
        f"({end - timedelta(days=7):%-d %b %Y})."
    ]


def test_a_request_without_lots_publishes_as_before(sized, buyer):
    services.request_publish(capacity_request=sized, user=buyer.user)
    assert sized.status == RequestStatus.OPEN


def test_nobody_but_the_buyer_publishes_whatever_the_lots_say(sized, buyer, provider, outsider):
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 8})
    for user in (provider.user, outsider.user):
        with pytest.raises(MoveRefused):
            services.request_publish(capacity_request=sized, user=user)


def test_no_approval_to_publish_is_asked_for_lots_that_do_not_add_up(sized, buyer, buyer_org):
    ApprovalPolicy.objects.create(organization=buyer_org, publish_one_over=Decimal(1))
    services.lot_add(capacity_request=sized, user=buyer.user, data={**LOT, "nodes": 16})
    with pytest.raises(ValidationError) as caught:
        approval_ask(capacity_request=sized, action=ApprovalAction.PUBLISH, user=buyer.user)
    assert list(caught.value.message_dict) == ["lots"]
    assert "The lots add up to 128 GPUs; the request asks for 256." in caught.value.messages[0]
    assert not ApprovalRequest.objects.exists()
