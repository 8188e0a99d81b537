"""The goodput cost model, checked against hand-worked numbers."""

import math
from dataclasses import replace
from decimal import Decimal

import pytest

from engine.scoring import (
    DEFAULT_NODE_MTBF_HOURS,
    compute_cost,
    daly_interval,
    first_order_goodput,
    goodput_curve,
    young_interval,
)
from engine.scoring.demo import demo_cheap, demo_premium, demo_request
from engine.scoring.reliability import (
    DEFAULT_DETECTION_SECONDS,
    DEFAULT_REVALIDATION_SECONDS,
    HEALTH_CHECK_DETECTION_SECONDS,
    HOT_SPARE_SWAP_SECONDS,
    MTBF_DECLARED,
    MTBF_DEFAULT,
    REPAIR_HOT_SPARE,
    REPAIR_REPLACEMENT,
    expected_support_wait_hours,
)


def test_it_reproduces_the_worked_young_interval() -> None:
    # C = 60 s, M = 8 h: sqrt(2 x 60 x 28,800) = sqrt(3,456,000)
    assert young_interval(60, 8 * 3600) == pytest.approx(1_859.03, abs=0.01)
    assert round(young_interval(60, 8 * 3600)) == 1_859


def test_it_refines_with_daly_just_below_young_for_small_c_over_m() -> None:
    c, m = 60.0, 8 * 3600.0
    x = c / (2 * m)
    expected = math.sqrt(2 * c * m) * (1 + math.sqrt(x) / 3 + x / 9) - c
    assert daly_interval(c, m) == pytest.approx(expected)
    assert daly_interval(c, m) == pytest.approx(1_819.25, abs=0.01)


def test_it_uses_m_as_the_interval_once_c_reaches_2m() -> None:
    assert daly_interval(7_200, 3_600) == 3_600
    assert daly_interval(10_000, 3_600) == 3_600


def test_it_derives_the_default_node_mtbf_from_llama3_figures() -> None:
    # 16,384 H100 / 8 = 2,048 nodes; 54 days; 419 unexpected interruptions
    derived = DEFAULT_NODE_MTBF_HOURS
    assert derived == pytest.approx(2_048 * 54 * 24 / 419)
    assert derived == pytest.approx(6_334.6, abs=0.1)


def test_it_computes_first_order_goodput_as_the_seed_example() -> None:
    t = young_interval(60, 8 * 3600)
    g = first_order_goodput(
        interval_seconds=t, checkpoint_seconds=60, mtbf_seconds=8 * 3600, restart_seconds=600
    )
    assert g == pytest.approx(1 - 60 / t - (t / 2 + 600) / 28_800)
    assert round(g, 3) == 0.915


def test_it_clamps_goodput_at_zero() -> None:
    g = first_order_goodput(
        interval_seconds=100, checkpoint_seconds=60, mtbf_seconds=3_600, restart_seconds=7_200
    )
    assert g == 0.0


def test_it_reports_which_mtbf_it_used() -> None:
    req = demo_request()
    silent = replace(demo_cheap(), declared_node_mtbf_hours=None)
    assert compute_cost(request=req, bid=silent).node_mtbf_source == MTBF_DEFAULT
    premium = compute_cost(request=req, bid=demo_premium())
    assert premium.node_mtbf_source == MTBF_DECLARED
    assert premium.node_mtbf_hours == 8_000
    assert premium.cluster_mtbf_hours == 4_000


def test_it_builds_restart_cost_from_its_parts_for_a_replacement() -> None:
    cost = compute_cost(request=demo_request(), bid=demo_cheap())
    assert cost.repair_path == REPAIR_REPLACEMENT
    assert cost.detection_seconds == DEFAULT_DETECTION_SECONDS
    assert cost.support_wait_seconds == pytest.approx(
        expected_support_wait_hours("business_hours") * 3600
    )
    assert cost.repair_seconds == 72 * 3600
    assert cost.restart_cost_seconds == pytest.approx(
        DEFAULT_DETECTION_SECONDS
        + cost.support_wait_seconds
        + 72 * 3600
        + DEFAULT_REVALIDATION_SECONDS
        + 300
    )


def test_it_swaps_a_hot_spare_without_waiting_for_staff() -> None:
    cost = compute_cost(request=demo_request(), bid=demo_premium())
    assert cost.repair_path == REPAIR_HOT_SPARE
    assert cost.detection_seconds == HEALTH_CHECK_DETECTION_SECONDS
    assert cost.support_wait_seconds == 0
    assert cost.repair_seconds == HOT_SPARE_SWAP_SECONDS
    assert cost.restart_cost_seconds == 300 + 1_800 + 1_800 + 300


def test_it_treats_spares_elsewhere_as_a_replacement() -> None:
    bid = replace(demo_premium(), spares_location="same_site", node_replacement_hours=8)
    cost = compute_cost(request=demo_request(), bid=bid)
    assert cost.repair_path == REPAIR_REPLACEMENT
    assert cost.repair_seconds == 8 * 3600


def test_it_waits_out_support_hours() -> None:
    assert expected_support_wait_hours("24x7") == 0
    assert expected_support_wait_hours("extended") == pytest.approx(7 * 12**2 / 2 / 168)
    # Mon-Thu nights of 14 h and a 62 h weekend
    assert expected_support_wait_hours("business_hours") == pytest.approx(
        (4 * 14**2 / 2 + 62**2 / 2) / 168
    )


def test_it_spreads_fees_and_egress_over_the_term() -> None:
    req = demo_request()
    assert req.term_hours == 89 * 24
    bid = replace(demo_premium(), fees_usd=Decimal("5000"), egress_usd=Decimal("1835.20"))
    cost = compute_cost(request=req, bid=bid)
    assert cost.overhead_per_gpu_hour == pytest.approx(6_835.20 / (16 * 2_136))
    assert cost.effective_price_per_useful_gpu_hour == pytest.approx((2.32 + 0.2) / cost.goodput)
    assert cost.total_cost_usd == pytest.approx(2.32 * 16 * 2_136 + 6_835.20)
    assert cost.useful_gpu_hours == pytest.approx(16 * 2_136 * cost.goodput)


def test_it_has_no_effective_price_without_useful_work() -> None:
    bid = replace(demo_cheap(), declared_node_mtbf_hours=100.0, nodes=2)
    cost = compute_cost(request=demo_request(), bid=bid)
    assert cost.goodput == 0
    assert cost.effective_price_per_useful_gpu_hour is None
    assert cost.run_wall_hours is None
    assert cost.run_fits_term is False


def test_it_counts_lost_gpu_hours_per_incident_and_month() -> None:
    cost = compute_cost(request=demo_request(), bid=demo_premium())
    per_incident = (cost.interval_seconds / 2 + cost.restart_cost_seconds) / 3600 * 16
    assert cost.lost_gpu_hours_per_incident == pytest.approx(per_incident)
    assert cost.incidents_per_month == pytest.approx(730 / 4_000)
    assert cost.lost_gpu_hours_per_month == pytest.approx(per_incident * 730 / 4_000)
    assert cost.expected_incidents_in_run == pytest.approx(2_000 / 4_000)


def test_it_explains_every_number_with_its_formula() -> None:
    silent = replace(demo_cheap(), declared_node_mtbf_hours=None)
    cost = compute_cost(request=demo_request(), bid=silent)
    rows = cost.explain()
    labels = [label for label, _, _ in rows]
    assert "Cluster MTBF M (h)" in labels
    assert "Effective price per useful GPU-hour ($)" in labels
    by_label = {label: (formula, value) for label, formula, value in rows}
    formula, value = by_label["Node MTBF (h)"]
    assert "419" in formula and "Llama 3" in formula
    assert value == cost.node_mtbf_hours
    assert by_label["Goodput"][1] == cost.goodput


def test_it_draws_a_goodput_curve_around_the_chosen_interval() -> None:
    curve = goodput_curve(demo_request(), demo_premium(), points=40)
    assert len(curve.points) == 40
    xs = [x for x, _ in curve.points]
    assert xs == sorted(xs)
    assert xs[0] == pytest.approx(curve.chosen_interval_seconds / 10)
    assert xs[-1] == pytest.approx(curve.chosen_interval_seconds * 10)
    assert all(g <= curve.chosen_goodput + 1e-4 for _, g in curve.points)
    with pytest.raises(ValueError):
        goodput_curve(demo_request(), demo_premium(), points=1)
