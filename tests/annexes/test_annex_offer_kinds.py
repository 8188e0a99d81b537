"""The contract annex names the offer kind, its slice and the price per whole-device-equivalent
hour; an annex of a whole-device bid keeps exactly the terms it had (and so its checksum)."""

from __future__ import annotations

import pytest

from annexes.document.present import _offer_section, _request_section
from annexes.document.snapshot import request_part, revision_part
from bids.services import bid_save_draft, bid_submit
from tests.factories import BidFactory, CapacityRequestFactory

pytestmark = pytest.mark.django_db


def _rows(section):
    return [
        tuple(row) for block in section["blocks"] if block["type"] == "kv" for row in block["rows"]
    ]


def test_a_whole_device_bid_snapshots_no_slice_terms(provider):
    revision = bid_submit(bid=BidFactory(provider=provider.org), user=provider.user)
    terms = revision_part(revision)["terms"]
    assert "mig_profile" not in terms and "time_slice_replicas" not in terms
    rows = _rows(_offer_section({"bid_revision": revision_part(revision)}))
    assert not any(label.startswith("Price per whole-device") for label, _ in rows)


def test_a_time_sliced_bid_prints_its_replicas_isolation_and_device_price(provider):
    req = CapacityRequestFactory(accepted_offer_kinds=["whole_device", "time_sliced"])
    bid = BidFactory(request=req, provider=provider.org)
    terms = {
        "isolation_class": "time_sliced",
        "time_slice_replicas": 4,
        "price_per_gpu_hour": "0.8",
    }
    bid_save_draft(bid=bid, user=provider.user, data=terms)
    revision = bid_submit(bid=bid, user=provider.user)
    rows = _rows(_offer_section({"bid_revision": revision_part(revision)}))
    assert ("Offer kind (isolation)", "Time-sliced") in rows
    assert ("Time-slice replicas per GPU", "4") in rows
    assert ("Offer", "Time-sliced, 4 replicas per GPU (1/4 of a GPU, not isolated)") in rows
    assert ("Isolation", "no isolation guarantee: replicas share memory and faults") in rows
    assert ("Price per slice-hour", "$0.800") in rows
    assert ("Price per whole-device-equivalent hour", "$3.200") in rows
    request_rows = _rows(_request_section({"request": request_part(req, both_parties=True)}))
    assert ("Accepted offer kinds", "Whole device, Time-sliced") in request_rows
