"""A lot's billed rate: the offer's price less the discount bundles the award earns the bid."""

from __future__ import annotations

from decimal import Decimal

from engine.evidence.checks import load_spec, within_allocation
from engine.evidence.fixtures import default_spec
from engine.lots import DISCOUNT, MAX_TOTAL, Bundle, awarded_lot_prices

OFFERS = {1: Decimal("2.10"), 2: Decimal("2.20"), 3: Decimal("2.50")}
FIVE_ON_1_2 = Bundle(kind=DISCOUNT, lots=(1, 2), discount_pct=Decimal("5"))


def test_a_discount_earned_on_every_lot_it_names_lowers_each_lots_rate():
    prices = awarded_lot_prices(offers=OFFERS, bundles=[FIVE_ON_1_2], awarded=[1, 2])
    assert prices == {1: Decimal("1.995"), 2: Decimal("2.090")}


def test_a_discount_not_earned_leaves_the_list_price():
    prices = awarded_lot_prices(offers=OFFERS, bundles=[FIVE_ON_1_2], awarded=[1, 3])
    assert prices == {1: Decimal("2.100"), 3: Decimal("2.500")}


def test_two_earned_discounts_on_one_lot_add_up_and_other_kinds_are_not_prices():
    two_on_2_3 = Bundle(kind=DISCOUNT, lots=(2, 3), discount_pct=Decimal("2"))
    cap = Bundle(kind=MAX_TOTAL, max_gpus=96)
    prices = awarded_lot_prices(
        offers=OFFERS, bundles=[FIVE_ON_1_2, two_on_2_3, cap], awarded=[1, 2, 3]
    )
    # Lot 2: 2.20 × (1 − 0.07) = 2.046; lot 3: 2.50 × 0.98 = 2.450.
    assert prices == {1: Decimal("1.995"), 2: Decimal("2.046"), 3: Decimal("2.450")}


def test_a_small_lot_is_checked_on_its_own_nodes_and_a_subset_keeps_its_size():
    spec = load_spec(default_spec(gpu_model="H200", nodes=8, gpus_per_node=8))
    small = within_allocation(spec, nodes=2, gpus_per_node=8)
    assert (small.nodes, small.gpus_per_node, small.world_size) == (2, 8, 16)
    assert small.thresholds == spec.thresholds
    subset = load_spec(default_spec(gpu_model="H200", nodes=2, gpus_per_node=8))
    assert within_allocation(subset, nodes=4, gpus_per_node=8).nodes == 2
