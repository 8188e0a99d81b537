"""The availability and credit calculator, without a database."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal as D
from typing import Any

import pytest

from engine.delivery.availability import (
    UNAGREED_MAINTENANCE,
    AvailabilityInputError,
    CreditTerms,
    Inputs,
    Outage,
    Tier,
    Window,
    compute,
    tier_for,
)

TIERS = (Tier(D("99.9"), D("10")), Tier(D("99.0"), D("25")), Tier(D("95.0"), D("100")))
NODES = ("a", "b", "c", "d")


def at(month: int, day: int, hour: int = 0) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


def inputs(**kw) -> Inputs:
    base: dict[str, Any] = {
        "term_start": at(1, 1), "term_end": at(4, 1), "contracted_start": at(1, 1),
        "nodes": NODES, "contracted_nodes": 4, "gpus_per_node": 8, "rate": D("2.00"),
        "fees_usd": D(0), "egress_usd": D(0), "terms": CreditTerms(tiers=TIERS), "now": at(6, 1),
    }  # fmt: skip
    return Inputs(**{**base, **kw})


def test_a_quiet_term_is_fully_available_and_earns_nothing():
    report = compute(inputs())
    assert [m.label for m in report.months] == ["2026-01", "2026-02", "2026-03"]
    assert all(m.availability_pct.value == 100 for m in report.months)
    assert report.credits.value == 0
    assert report.cost_per_useful_gpu_hour.value == D("2.0000")


def test_an_incident_across_a_month_boundary_is_split_between_the_months():
    outage = Outage("i1", "S3", at(1, 31, 20), at(2, 1, 6), ("b",))
    jan, feb, _mar = compute(inputs(outages=(outage,))).months
    assert jan.down_node_hours.value == 4
    assert feb.down_node_hours.value == 6
    assert "1 − 4.00 down node-h ÷ (2,976.00 scheduled node-h" in jan.availability_pct.formula


def test_a_whole_allocation_incident_takes_every_node_down():
    outage = Outage("i1", "S1", at(1, 10, 8), at(1, 10, 14))
    report = compute(inputs(outages=(outage,)))
    assert report.months[0].down_node_hours.value == 24
    assert {row.node: row.down_hours for row in report.nodes} == dict.fromkeys(NODES, 6)


def test_maintenance_overlapping_an_incident_is_not_down_and_leaves_the_schedule():
    outage = Outage("i1", "S3", at(3, 15, 0), at(3, 15, 6), ("a",))
    window = Window("w1", at(3, 15, 2), at(3, 15, 4), ("a", "b"))
    mar = compute(inputs(outages=(outage,), maintenance=(window,))).months[2]
    assert mar.maintenance_node_hours.value == 4
    assert mar.down_node_hours.value == 4  # 6 h on a, less its 2 h of maintenance
    expected = (1 - D(4) / (D(2976) - D(4))) * 100
    assert mar.availability_pct.value == expected


def test_an_open_incident_runs_to_now_and_the_figures_stop_there():
    outage = Outage("i1", "S1", at(2, 27, 0), None)
    report = compute(inputs(outages=(outage,), now=at(3, 1, 12)))
    assert report.as_of == at(3, 1, 12)
    assert [m.label for m in report.months] == ["2026-01", "2026-02", "2026-03"]
    assert report.months[1].down_node_hours.value == 4 * 48
    assert report.months[2].down_node_hours.value == 4 * 12
    assert report.months[2].accepted_hours.value == 12


def test_a_node_not_among_the_lanes_is_shown_and_the_allocation_never_exceeds_its_size():
    outage = Outage("i1", "S3", at(1, 5), at(1, 6), ("spare-9",))
    whole = Outage("i2", "S1", at(1, 7), at(1, 8))
    report = compute(inputs(outages=(outage, whole)))
    assert [r.node for r in report.nodes][-1] == "spare-9"
    assert not report.nodes[-1].contracted
    # a day on spare-9, then a day on the whole allocation: five lanes, counted as four nodes
    assert report.months[0].down_node_hours.value == 24 + 4 * 24
    assert "spare-9" in report.notes[0]


def test_severities_the_terms_leave_out_are_not_downtime_but_short_notice_maintenance_is():
    s2 = Outage("i1", "S2", at(1, 5), at(1, 6))
    unagreed = Outage("w1", UNAGREED_MAINTENANCE, at(1, 9), at(1, 10), ("c",))
    jan = compute(inputs(outages=(s2, unagreed))).months[0]
    assert jan.down_node_hours.value == 24  # a day on one node; the S2 day is not counted


def test_the_lowest_tier_reached_wins_and_breaches_add_up_to_the_cap():
    assert tier_for(D("99.95"), TIERS) is None
    assert tier_for(D("99.9"), TIERS) is None  # strictly below
    assert tier_for(D("99.89"), TIERS) == TIERS[0]
    assert tier_for(D("98"), TIERS) == TIERS[1]
    terms = CreditTerms(tiers=TIERS, cap_pct=D("30"), breach_credit_pct=D("5"))
    outage = Outage("i1", "S1", at(1, 1), at(1, 1, 8), breaches=2)  # 8 h of 744: 98.9 %
    jan = compute(inputs(outages=(outage,), terms=terms)).months[0]
    assert jan.tier_credit_pct.value == 25 and jan.breach_credit_pct.value == 10
    assert jan.credit_pct.value == 30
    assert jan.credit.value == D("14284.80")
    assert "min(25 % + 10 %, cap 30 %) = 30 %" in jan.credit_pct.formula


def test_credit_never_exceeds_the_months_fees():
    terms = CreditTerms(tiers=TIERS, breach_credit_pct=D("50"))
    outage = Outage("i1", "S1", at(1, 1), at(1, 20), breaches=2)
    jan = compute(inputs(outages=(outage,), terms=terms)).months[0]
    assert jan.credit_pct.value == 100 and jan.credit.value == jan.fees.value


def test_realised_cost_takes_the_billed_amount_when_reconciled():
    outage = Outage("i1", "S2", at(1, 5), at(1, 6), lost_gpu_hours=D("120"))
    report = compute(inputs(outages=(outage,)), billed_usd=D("100000"))
    assert report.useful_gpu_hours.value == 69120 - 120
    assert report.cost_per_useful_gpu_hour.value == D("1.4493")
    assert "$100,000.00 billed" in report.paid.formula


def test_a_term_before_acceptance_has_no_months_and_no_cost():
    report = compute(inputs(now=at(1, 1)))
    assert report.months == [] and report.cost_per_useful_gpu_hour.value is None


def test_a_term_that_ends_before_it_starts_is_refused():
    with pytest.raises(AvailabilityInputError):
        compute(inputs(term_end=at(1, 1)))


def test_a_twelve_hour_s1_naming_one_node_takes_the_whole_allocation_down():
    """The worked example of docs/availability.md: S1 is the job down across the cluster, so
    12 hours of it on a 4-node allocation in a 31-day month are 48 down node-hours of 2,976:
    98.387 %, below 99 %, a 25 % credit. Counting only the named node would give 99.597 % and
    10 %."""
    s1 = Outage("i1", "S1", at(1, 10, 6), at(1, 10, 18), ("b",))
    jan = compute(inputs(outages=(s1,))).months[0]
    assert jan.down_node_hours.value == 48
    assert f"{jan.availability_pct.value:.3f}" == "98.387"
    assert jan.tier_credit_pct.value == 25
    scoped_to_nodes = CreditTerms(tiers=TIERS, whole_allocation_severities=frozenset())
    jan = compute(inputs(outages=(s1,), terms=scoped_to_nodes)).months[0]
    assert f"{jan.availability_pct.value:.3f}" == "99.597" and jan.tier_credit_pct.value == 10


def test_an_s3_takes_down_only_the_nodes_it_names():
    s3 = Outage("i1", "S3", at(1, 10, 6), at(1, 10, 18), ("b",))
    assert compute(inputs(outages=(s3,))).months[0].down_node_hours.value == 12


def test_a_degraded_s2_counts_as_downtime_at_the_agreed_fraction():
    """docs/availability.md: an 8-hour S2 on one node of 4, terms at 50 %: 8 h × 0.5 = 4 down
    node-hours of 2,976 in January, 1 − 4 ÷ 2,976 = 99.866 %, below 99.9 %: a 10 % credit. At
    the default 0 % the S2 is not downtime: 100 % and no credit."""
    s2 = Outage("i1", "S2", at(1, 10, 6), at(1, 10, 14), ("b",))
    half = CreditTerms(tiers=TIERS, degraded_downtime_pct=D(50))
    report = compute(inputs(outages=(s2,), terms=half))
    jan = report.months[0]
    assert jan.down_node_hours.value == 4
    assert f"{jan.availability_pct.value:.3f}" == "99.866" and jan.tier_credit_pct.value == 10
    assert "S2 at 50 % of its duration" in jan.down_node_hours.formula
    assert {n.node: n.down_hours for n in report.nodes}["b"] == 4
    default = compute(inputs(outages=(s2,))).months[0]
    assert default.down_node_hours.value == 0 and default.tier_credit_pct.value == 0
    # A node fully down (an S3 from 10:00 to 12:00) inside the S2 counts once, in full:
    # 4 h × 0.5 + 2 h × 1 + 2 h × 0.5 = 5 node-hours, not 6.
    s3 = Outage("i2", "S3", at(1, 10, 10), at(1, 10, 12), ("b",))
    both = compute(inputs(outages=(s2, s3), terms=half)).months[0]
    assert both.down_node_hours.value == 5
