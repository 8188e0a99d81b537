"""Offer kinds by isolation: a MIG instance or a time-sliced replica counts as its share of one
GPU, so prices of every kind compare per whole-device-equivalent hour (docs/scoring.md, 1c)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest

from engine.scoring import ScoringInputError, compute_cost, hard_requirement_failures
from engine.scoring.demo import demo_premium, demo_request
from engine.scoring.offer_kinds import (
    MIG_PROFILES,
    OfferKindError,
    describe,
    device_fraction,
    mig_profile,
)

ALL_KINDS = ("whole_device", "mig", "time_sliced")


def worked_example():
    """docs/scoring.md, section 1c: one H200 request, three bids alike but for their kind."""
    request = replace(demo_request(), accepted_offer_kinds=ALL_KINDS)
    base = replace(demo_premium(), fees_usd=Decimal("0"), egress_usd=Decimal("0"))
    whole = replace(base, label="whole", price_per_gpu_hour=Decimal("3.50"))
    mig = replace(
        base,
        label="mig",
        isolation_class="mig",
        mig_profile="3g.71gb",
        price_per_gpu_hour=Decimal("1.40"),
    )
    sliced = replace(
        base,
        label="sliced",
        isolation_class="time_sliced",
        time_slice_replicas=4,
        price_per_gpu_hour=Decimal("0.80"),
    )
    return request, whole, mig, sliced


def test_a_slice_counts_as_its_share_of_one_gpu():
    assert device_fraction(kind="whole_device") == 1
    assert device_fraction(kind="mig", profile="1g.18gb") == Fraction(1, 7)
    assert device_fraction(kind="mig", profile="3g.71gb") == Fraction(3, 7)
    assert device_fraction(kind="mig", profile="7g.141gb") == 1
    assert device_fraction(kind="time_sliced", replicas=4) == Fraction(1, 4)


def test_the_worked_example_prices_every_kind_per_whole_device_hour():
    request, whole, mig, sliced = worked_example()
    per_device = {b.label: b.price_per_device_hour for b in (whole, mig, sliced)}
    # 3.50 / 1; 1.40 / (3/7) = 1.40 x 7 / 3; 0.80 / (1/4) = 0.80 x 4
    assert per_device == pytest.approx({"whole": 3.50, "mig": 3.2667, "sliced": 3.20}, abs=1e-4)
    per_dollar = {label: 1 / price for label, price in per_device.items()}
    assert per_dollar == pytest.approx({"whole": 0.2857, "mig": 0.3061, "sliced": 0.3125}, abs=1e-4)
    costs = {b.label: compute_cost(request=request, bid=b) for b in (whole, mig, sliced)}
    assert costs["mig"].price_per_slice_hour == 1.40
    assert costs["mig"].price_per_gpu_hour == pytest.approx(3.2667, abs=1e-4)
    # Same hardware and terms, so the same goodput: the effective prices keep the order.
    goodput = costs["whole"].goodput
    assert {c.goodput for c in costs.values()} == {goodput}
    effective = {k: c.effective_price_per_useful_gpu_hour for k, c in costs.items()}
    assert effective["mig"] == pytest.approx(3.2667 / goodput, abs=1e-3)
    assert effective["sliced"] < effective["mig"] < effective["whole"]


def test_the_cost_explanation_shows_how_a_slice_price_became_a_device_price():
    request, _, mig, _ = worked_example()
    rows = {
        label: formula for label, formula, _ in compute_cost(request=request, bid=mig).explain()
    }
    assert rows["Price per whole-device-equivalent hour ($)"] == (
        "1.4000 per slice-hour / 0.4286 of a GPU (MIG 3g.71gb (3/7 of a GPU))"
    )


def test_a_whole_device_bid_is_scored_as_before():
    request = demo_request()
    cost = compute_cost(request=request, bid=demo_premium())
    assert cost.price_per_gpu_hour == float(demo_premium().price_per_gpu_hour)
    labels = [label for label, _, _ in cost.explain()]
    assert "Price per whole-device-equivalent hour ($)" not in labels


def test_a_request_that_does_not_accept_time_slicing_refuses_the_sliced_bid():
    request, whole, mig, sliced = worked_example()
    strict = replace(request, accepted_offer_kinds=("whole_device", "mig"))
    assert hard_requirement_failures(request=strict, bid=whole) == ()
    assert hard_requirement_failures(request=strict, bid=mig) == ()
    (failure,) = hard_requirement_failures(request=strict, bid=sliced)
    assert (failure.code, failure.message) == (
        "isolation_class",
        "offers time-sliced GPUs; the request accepts whole device or MIG",
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"isolation_class": "mig"}, "mig_profile"),
        ({"isolation_class": "mig", "mig_profile": "3g.40"}, "mig_profile"),
        ({"isolation_class": "time_sliced"}, "time_slice_replicas"),
        ({"isolation_class": "time_sliced", "time_slice_replicas": 1}, "time_slice_replicas"),
    ],
)
def test_a_kind_without_its_specifics_cannot_be_scored(changes, field):
    with pytest.raises(ScoringInputError) as caught:
        replace(demo_premium(), **changes)
    assert caught.value.field == field


def test_profiles_are_the_ones_the_gpu_model_offers():
    assert mig_profile("3g.71gb", gpu_model="H200").compute_slices == 3
    with pytest.raises(OfferKindError, match=r"H200 GPUs offer the MIG profiles 1g\.18gb"):
        mig_profile("3g.40gb", gpu_model="H200")
    with pytest.raises(OfferKindError, match="L40S GPUs cannot be partitioned by MIG"):
        mig_profile("1g.10gb", gpu_model="L40S")
    # Every listed profile parses, and the largest of each model is the whole GPU.
    for profiles in MIG_PROFILES.values():
        assert [mig_profile(p).compute_slices for p in profiles] == [1, 1, 2, 3, 4, 7]


def test_the_kind_reads_in_words():
    assert describe(kind="mig", profile="1g.18gb") == "MIG 1g.18gb (1/7 of a GPU)"
    assert describe(kind="time_sliced", replicas=4) == (
        "Time-sliced, 4 replicas per GPU (1/4 of a GPU, not isolated)"
    )
    assert describe(kind="whole_device") == "Whole device"
