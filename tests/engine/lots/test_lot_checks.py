"""Lot offers and bundle conditions: what is read from the stored JSON, and each refusal's words."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.lots import (
    Bundle,
    LotInputError,
    LotOffer,
    LotSpec,
    bundle_errors,
    describe_bundle,
    offer_errors,
    read_bundles,
    read_offers,
)

LOTS = [
    LotSpec("Lot 1", gpus=256, gpus_per_node=8, number=1),
    LotSpec("Lot 2", gpus=128, gpus_per_node=8, divisible=True, min_block_nodes=4, number=2),
    LotSpec("Lot 3", gpus=64, gpus_per_node=8, divisible=True, min_block_nodes=2, number=3),
]
OFFERS = [
    LotOffer(lot=1, price_per_gpu_hour=Decimal("2.10"), nodes=32),
    LotOffer(lot=2, price_per_gpu_hour=Decimal("2.30"), nodes=8),
]


def test_offers_and_bundles_read_back_from_their_stored_form():
    offers = read_offers([{"lot": 1, "price_per_gpu_hour": "2.10", "nodes": 32}])
    assert offers == [LotOffer(lot=1, price_per_gpu_hour=Decimal("2.10"), nodes=32)]
    raw = [
        {"kind": "all_or_nothing", "lots": [1, 2]},
        {"kind": "discount", "lots": [1, 2], "discount_pct": "4"},
        {"kind": "max_total", "max_gpus": 256},
    ]
    bundles = read_bundles(raw)
    assert [b.to_json() for b in bundles] == raw
    assert [describe_bundle(b) for b in bundles] == [
        "Only together: lot 1 and lot 2, all or none.",
        "−4 % if awarded all of lot 1 and lot 2.",
        "At most 256 GPUs across all lots.",
    ]


def test_unreadable_rows_are_named_by_position():
    with pytest.raises(LotInputError) as caught:
        read_offers([{"lot": 1, "price_per_gpu_hour": "cheap", "nodes": 2}, {"lot": "x"}])
    assert caught.value.messages == [
        "Lot offer 1: give a price per GPU-hour as a number.",
        "Lot offer 2: give the lot's number.",
        "Lot offer 2: give a price per GPU-hour as a number.",
        "Lot offer 2: give the nodes offered as a whole number.",
    ]
    with pytest.raises(LotInputError, match="Bundle 1: unknown kind 'cheaper'"):
        read_bundles([{"kind": "cheaper", "lots": [1, 2]}])


@pytest.mark.parametrize(
    ("offer", "message"),
    [
        (LotOffer(lot=9, price_per_gpu_hour=Decimal("2"), nodes=1), "There is no lot 9"),
        (LotOffer(lot=1, price_per_gpu_hour=Decimal("2"), nodes=16), "Lot 1 is indivisible"),
        (LotOffer(lot=2, price_per_gpu_hour=Decimal("2"), nodes=20), "20 nodes offered, but"),
        (LotOffer(lot=2, price_per_gpu_hour=Decimal("2"), nodes=2), "at least 4 nodes"),
        (LotOffer(lot=3, price_per_gpu_hour=Decimal("0"), nodes=2), "must be above 0"),
    ],
)
def test_each_bad_offer_is_refused_in_words(offer, message):
    problems = offer_errors([offer], LOTS)
    assert len(problems) == 1 and message in problems[0]


def test_a_lot_offered_twice_is_refused():
    assert offer_errors([OFFERS[0], OFFERS[0]], LOTS) == [
        "Lot 1 is offered twice; give one offer per lot."
    ]


@pytest.mark.parametrize(
    ("bundle", "message"),
    [
        (
            Bundle(kind="all_or_nothing", lots=(1, 7)),
            "Bundle 1: there is no lot 7 in this request.",
        ),
        (Bundle(kind="all_or_nothing", lots=(1, 1)), "Bundle 1: name at least two different lots."),
        (Bundle(kind="all_or_nothing", lots=(1, 3)), "Bundle 1: you make no offer on lot 3."),
        (
            Bundle(kind="discount", lots=(1, 2), discount_pct=Decimal("60")),
            "Bundle 1: a discount must be above 0 and at most 50 %, not 60 %.",
        ),
        (
            Bundle(kind="discount", lots=(1, 2), discount_pct=Decimal("0")),
            "Bundle 1: a discount must be above 0 and at most 50 %, not 0 %.",
        ),
        (
            Bundle(kind="max_total", max_gpus=16),
            "Bundle 1: a maximum of 16 GPUs is below the smallest block you offer "
            "(32 GPUs on lot 2).",
        ),
    ],
)
def test_each_bad_bundle_is_refused_in_words(bundle, message):
    assert bundle_errors([bundle], OFFERS, LOTS) == [message]


def test_good_bundles_pass_and_none_are_taken_without_lots():
    good = [
        Bundle(kind="all_or_nothing", lots=(1, 2)),
        Bundle(kind="discount", lots=(1, 2), discount_pct=Decimal("4")),
        Bundle(kind="max_total", max_gpus=32),
    ]
    assert bundle_errors(good, OFFERS, LOTS) == []
    assert bundle_errors(good[:1], [], []) == [
        "This request has no lots: bundle conditions need lots to bid on."
    ]
    two_maxima = [Bundle(kind="max_total", max_gpus=64), Bundle(kind="max_total", max_gpus=96)]
    assert bundle_errors(two_maxima, OFFERS, LOTS) == ["Give at most one maximum total."]


def test_a_lot_offer_is_scored_on_the_lots_gpus_term_and_price():
    from datetime import date

    from engine.lots import lot_figures
    from engine.scoring import compute_cost
    from engine.scoring.demo import demo_cheap, demo_request

    request, bid = demo_request(), demo_cheap()
    lot = LotSpec("Lot 1", gpus=32, gpus_per_node=8, divisible=True, min_block_nodes=2, number=1)
    start, end = date(2027, 1, 1), date(2027, 1, 10)  # 240 hours

    def figures(price: str, nodes: int):
        offer = LotOffer(lot=1, price_per_gpu_hour=Decimal(price), nodes=nodes)
        result = lot_figures(request=request, bid=bid, lot=lot, offer=offer, start=start, end=end)
        assert result is not None
        return result

    full, half = figures("2.00", 4), figures("2.00", 2)
    assert (full.gpus, half.gpus) == (32, 16)
    assert full.total_cost_usd == pytest.approx(2.00 * 32 * 240)  # fees stay with the bid
    # Fewer nodes fail less often: half the lot keeps more than half the useful hours.
    assert half.useful_gpu_hours > full.useful_gpu_hours / 2
    assert figures("4.00", 4).useful_gpu_hours_per_dollar == pytest.approx(
        full.useful_gpu_hours_per_dollar / 2
    )
    # The same model as the whole bid: goodput below 1, so fewer useful hours than paid for.
    assert full.useful_gpu_hours < 32 * 240
    assert compute_cost(request=request, bid=bid).useful_gpu_hours > 0
