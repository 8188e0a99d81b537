"""The annex of a bid on lots prints its offers and bundle conditions in words; an annex of a bid
on a request without lots keeps exactly the terms it had (and so its checksum)."""

from __future__ import annotations

import pytest

from annexes.document.present import _offer_section
from annexes.document.snapshot import revision_part
from bids.services import bid_save_draft, bid_submit
from tests.factories import BidFactory, CapacityRequestFactory, LotFactory

pytestmark = pytest.mark.django_db


def _rows(section):
    return [row for block in section["blocks"] if block["type"] == "kv" for row in block["rows"]]


def test_a_bid_without_lots_snapshots_no_lot_terms(provider):
    revision = bid_submit(bid=BidFactory(provider=provider.org), user=provider.user)
    terms = revision_part(revision)["terms"]
    assert "lot_offers" not in terms and "bundles" not in terms and terms["nodes"] == 2


def test_a_bid_on_lots_prints_its_offers_and_bundles(provider):
    req = CapacityRequestFactory(nodes=4, gpu_count=32)
    LotFactory(request=req, number=1, nodes=2)
    LotFactory(request=req, number=2, nodes=2)
    bid = BidFactory(request=req, provider=provider.org)
    bid_save_draft(
        bid=bid,
        user=provider.user,
        data={
            "lot_offers": [
                {"lot": 1, "price_per_gpu_hour": "2.10", "nodes": 2},
                {"lot": 2, "price_per_gpu_hour": "2.30", "nodes": 2},
            ],
            "bundles": [{"kind": "all_or_nothing", "lots": [1, 2]}],
        },
    )
    revision = bid_submit(bid=bid, user=provider.user)
    snap = {"bid_revision": revision_part(revision)}
    rows = [tuple(row) for row in _rows(_offer_section(snap))]
    assert ("Lot 2", "2 nodes at $2.30 per GPU-hour") in rows
    assert ("Bundle 1", "Only together: lot 1 and lot 2, all or none.") in rows
    assert not any("lot_offers" in str(label).lower() for label, _ in rows)
