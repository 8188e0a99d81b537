"""The cost model learns: the buyer's own checkpoint interval, and a provider's track record in
place of the declared or default node MTBF and modelled restart times."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.scoring import ProviderHistory, TimingRecord, compute_cost, goodput_curve
from engine.scoring.demo import demo_premium, demo_request
from engine.scoring.history import MIN_NODE_HOURS
from engine.scoring.inputs import ScoringInputError
from engine.scoring.reliability import DEFAULT_NODE_MTBF_HOURS, MTBF_DEFAULT, MTBF_REALISED


def seed_002_job():
    """Seed 002's example: 16 nodes of 8 GPUs, checkpoints every 60 minutes. The write time
    (60 s) and restart/load (300 s) are the demo's; the bid has a hot spare and auto-drain."""
    request = replace(
        demo_request(),
        gpu_count=128,
        nodes=16,
        checkpoint_write_seconds=60.0,
        restart_seconds=300.0,
        checkpoint_interval_seconds=3_600.0,
    )
    bid = replace(demo_premium(), nodes=16, declared_node_mtbf_hours=8_000.0)
    return request, bid


def test_a_60_minute_interval_changes_goodput_exactly_as_the_first_order_formula_says() -> None:
    request, bid = seed_002_job()
    # M = 8,000 h / 16 nodes = 500 h = 1,800,000 s.
    # R = detection 300 (auto-drain) + support wait 0 (automated swap) + hot spare 1,800
    #     + revalidation 1,800 + restart 300 = 4,200 s.
    # goodput = 1 - C/t - (t/2 + R)/M = 1 - 60/3,600 - (1,800 + 4,200)/1,800,000 = 0.98
    c, t, m, r = 60.0, 3_600.0, 1_800_000.0, 4_200.0
    worked = 1 - c / t - (t / 2 + r) / m
    assert worked == pytest.approx(0.98)

    cost = compute_cost(request=request, bid=bid)

    assert cost.restart_cost_seconds == r and cost.cluster_mtbf_seconds == m
    assert cost.interval_seconds == t and cost.interval_source == "buyer"
    assert cost.goodput == pytest.approx(worked)
    # The optimum (Daly, about 4 h here) stays computed and does better than the job's hour.
    assert cost.daly_interval_seconds == pytest.approx(
        math.sqrt(2 * c * m) * (1 + math.sqrt(c / (2 * m)) / 3 + c / (2 * m) / 9) - c
    )
    assert cost.goodput < cost.optimum_goodput
    # Work lost per incident follows the real interval: (t/2 + R) x 128 GPUs.
    assert cost.lost_gpu_hours_per_incident == pytest.approx((1_800 + 4_200) / 3_600 * 128)


def test_without_an_interval_each_bid_is_scored_at_its_optimum() -> None:
    request, bid = seed_002_job()
    cost = compute_cost(request=replace(request, checkpoint_interval_seconds=None), bid=bid)
    assert cost.interval_source == "optimum"
    assert cost.interval_seconds == cost.daly_interval_seconds
    assert cost.goodput == cost.optimum_goodput


def test_explain_says_which_interval_was_used_and_why() -> None:
    request, bid = seed_002_job()
    steps = {
        label: formula for label, formula, _ in compute_cost(request=request, bid=bid).explain()
    }
    assert "the buyer's interval, 60 min, from the request" in steps["Checkpoint interval t (s)"]
    assert steps["Optimum interval (s)"].startswith("Daly 2006")
    assert "1 - 60/3,600 - (1,800 + 4,200)/1,800,000" in steps["Goodput"]

    no_interval = replace(request, checkpoint_interval_seconds=None)
    steps = {f[0]: f[1] for f in compute_cost(request=no_interval, bid=bid).explain()}
    assert steps["Checkpoint interval t (s)"] == "no interval on the request: the optimum above"


def test_the_chart_curve_spans_both_the_buyers_interval_and_the_optimum() -> None:
    request, bid = seed_002_job()
    curve = goodput_curve(request, bid, points=20)
    assert curve.chosen_interval_seconds == 3_600.0
    assert curve.chosen_goodput == pytest.approx(0.98)
    xs = [x for x, _ in curve.points]
    assert min(xs) == pytest.approx(360) and max(xs) == pytest.approx(
        curve.optimum_interval_seconds * 10
    )
    assert curve.optimum_goodput > curve.chosen_goodput


def test_an_interval_that_is_not_positive_is_refused_by_name() -> None:
    with pytest.raises(ScoringInputError, match="checkpoint_interval_seconds"):
        replace(demo_request(), checkpoint_interval_seconds=0.0)


def _silent_bid(**history: object):
    """A bid declaring no MTBF, on 2 nodes, with a track record."""
    record = ProviderHistory(**{"reservations": 3, "incidents": 4, **history})
    return replace(demo_premium(), declared_node_mtbf_hours=None, history=record)


def test_a_record_below_the_minimum_leaves_the_default_and_says_so() -> None:
    bid = _silent_bid(node_hours=MIN_NODE_HOURS - 1)
    cost = compute_cost(request=demo_request(), bid=bid)
    assert cost.node_mtbf_source == MTBF_DEFAULT
    assert cost.node_mtbf_hours == DEFAULT_NODE_MTBF_HOURS
    assert cost.node_mtbf_provenance == "default"
    assert "record too short to count: 3 reservations, 9,999 node-hours" in cost.node_mtbf_formula


def test_a_long_enough_record_replaces_the_default_with_its_provenance() -> None:
    bid = _silent_bid(node_hours=40_000.0)
    cost = compute_cost(request=demo_request(), bid=bid)
    # (P + H) / (P / prior + n) with P = 10,000 node-hours of prior at the default MTBF.
    expected = (10_000 + 40_000) / (10_000 / DEFAULT_NODE_MTBF_HOURS + 4)
    assert cost.node_mtbf_source == MTBF_REALISED
    assert cost.node_mtbf_hours == pytest.approx(expected)
    assert cost.node_mtbf_provenance == "realised, 3 reservations, 40,000 node-hours, 4 incidents"
    steps = {label: formula for label, formula, _ in cost.explain()}
    assert "the record weighs H / (P + H) = 80%" in steps["Node MTBF (h)"]
    assert steps["Node MTBF (h)"].endswith("prior = the default 6,335 h")


def test_the_realised_mtbf_falls_with_incidents_and_rises_with_clean_hours() -> None:
    def mtbf(hours: float, incidents: int) -> float:
        bid = _silent_bid(node_hours=hours, incidents=incidents)
        return compute_cost(request=demo_request(), bid=bid).node_mtbf_hours

    by_incidents = [mtbf(20_000, n) for n in range(0, 12)]
    assert by_incidents == sorted(by_incidents, reverse=True)
    by_hours = [mtbf(h, 3) for h in (10_000, 20_000, 80_000, 320_000)]
    assert by_hours == sorted(by_hours)
    assert math.isfinite(mtbf(50_000, 0))  # a clean record still gives a finite figure


def test_realised_restart_times_replace_the_modelled_ones_from_five_closed_incidents() -> None:
    samples = [600.0, 900.0, 1_200.0, 1_500.0, 99_000.0]  # one outlier: the median ignores it
    four = _silent_bid(node_hours=1_000, detection=TimingRecord.of(samples[:4]))
    modelled = compute_cost(request=demo_request(), bid=four)
    assert modelled.detection_seconds == 300.0  # auto-drain health checks
    assert "only 4 closed incidents recorded; 5 needed" in modelled.detection_from

    record = {
        "detection": TimingRecord.of(samples),
        "repair": TimingRecord.of([7_200.0] * 5),
        "revalidation": TimingRecord.of([3_600.0] * 5),
    }
    cost = compute_cost(request=demo_request(), bid=_silent_bid(node_hours=1_000, **record))
    assert cost.detection_seconds == 1_200.0
    assert cost.support_wait_seconds == 0.0
    assert cost.support_wait_from == "included in the realised detection"
    assert cost.repair_seconds == 7_200.0 and cost.revalidation_seconds == 3_600.0
    assert cost.restart_cost_seconds == 1_200 + 7_200 + 3_600 + 300
    assert cost.repair_from == "realised: median of 5 closed incidents (first response to restore)"
