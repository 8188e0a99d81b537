"""The annex states the contract's total value with its breakdown, and it is the same total the
comparison page showed for that bid."""

from __future__ import annotations

import re
from decimal import Decimal

from acceptance.models import Reservation
from annexes.document.snapshot import contract_snapshot
from annexes.document.value import value_rows
from engine.scoring.cost_model import compute_cost
from evaluation.scoring_io import bid_offer, request_profile
from tests.annexes.test_annex_award import _contract_text


def test_the_annex_prints_the_total_the_comparison_showed(
    awarded, buyer, django_capture_on_commit_callbacks
):
    reservation = Reservation.objects.select_related("bid_revision").get(request=awarded.request)
    predicted = compute_cost(
        request=request_profile(awarded.request), bid=bid_offer(reservation.bid_revision)
    ).total_cost_usd
    text = _contract_text(awarded.request, buyer.user, django_capture_on_commit_callbacks)
    found = re.search(r"Total contract value \$([\d,]+\.\d\d)", text.split("Compute", 1)[1])
    assert found, text
    assert Decimal(found.group(1).replace(",", "")) == Decimal(str(predicted)).quantize(
        Decimal("0.01")
    )
    req = awarded.request
    hours = ((req.reservation_end - req.reservation_start).days + 1) * 24
    assert f"{req.gpu_count:,} GPUs × {hours:,} h" in text


def test_the_breakdown_is_exact_to_the_cent():
    snap = {
        "request": {"gpu_count": 16, "reservation_start": "2027-01-01",
                    "reservation_end": "2027-03-31"},
        "bid_revision": {"terms": {"price_per_gpu_hour": "2.415", "fees_usd": "1500.00",
                                   "egress_usd": "0.10"}},
    }  # fmt: skip
    assert value_rows(snap) == [
        ("GPU-hours", "16 GPUs × 2,160 h (90 days) = 34,560 GPU-h"),
        ("Compute", "34,560 GPU-h × $2.415 per GPU-hour = $83,462.40"),
        ("Fees", "$1,500.00"),
        ("Egress", "$0.10"),
        ("Total contract value", "$84,962.50"),
    ]


def test_an_annex_whose_offer_lacks_a_price_prints_no_total(awarded):
    snap = contract_snapshot(capacity_request=awarded.request)
    snap["bid_revision"]["terms"]["price_per_gpu_hour"] = None
    assert value_rows(snap) is None
