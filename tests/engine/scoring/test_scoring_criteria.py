"""Hard requirements and the five criteria."""

from dataclasses import replace
from datetime import date

import pytest

from engine.scoring import (
    CRITERIA,
    BidOffer,
    RequestProfile,
    compute_cost,
    hard_requirement_failures,
)
from engine.scoring.criteria import (
    score_acceptance_terms,
    score_criteria,
    score_delivery_risk,
    score_effective_cost,
    score_fabric_placement,
    score_incident_sla,
)
from engine.scoring.demo import demo_cheap, demo_premium, demo_request, demo_wrong_region


def codes(bid: BidOffer, request: RequestProfile | None = None) -> list[str]:
    return [d.code for d in hard_requirement_failures(request=request or demo_request(), bid=bid)]


def test_a_matching_bid_has_no_failures() -> None:
    assert codes(demo_premium()) == []
    assert codes(demo_cheap()) == []


def test_it_lists_every_failed_requirement() -> None:
    bid = replace(
        demo_premium(),
        gpu_model="H100",
        nodes=1,
        region="US",
        available_start=date(2027, 2, 3),
        available_end=date(2027, 4, 1),
        isolation_class="time_sliced",
        time_slice_replicas=4,
        scheduler="kubernetes",
        deal_breaker_failures=("no named incident owner", "refuses burn-in before billing"),
        missing_required_answers=("S1 restore clock",),
    )
    failures = hard_requirement_failures(request=demo_request(), bid=bid)
    assert [d.code for d in failures] == [
        "gpu_model",
        "gpu_count",
        "region",
        "available_start",
        "term_not_covered",
        "isolation_class",
        "scheduler",
        "deal_breaker",
        "deal_breaker",
        "missing_answer",
    ]
    messages = " | ".join(d.message for d in failures)
    for needle in (
        "H100",
        "8 GPUs",
        "US",
        "2027-02-03",
        "2027-04-01",
        "time-sliced",
        "kubernetes",
        "no named incident owner",
        "refuses burn-in",
        "S1 restore clock",
    ):
        assert needle in messages


def test_region_and_model_compare_without_case_or_spacing() -> None:
    assert codes(replace(demo_premium(), region=" eu ", gpu_model="h200")) == []


def test_only_the_offer_kinds_the_request_accepts_qualify() -> None:
    req = replace(demo_request(), accepted_offer_kinds=("whole_device", "mig"))
    mig = replace(demo_premium(), isolation_class="mig", mig_profile="3g.71gb")
    sliced = replace(demo_premium(), isolation_class="time_sliced", time_slice_replicas=4)
    assert codes(demo_premium(), req) == []
    assert codes(mig, req) == []
    assert codes(sliced, req) == ["isolation_class"]
    (failure,) = hard_requirement_failures(request=req, bid=sliced)
    assert failure.message == ("offers time-sliced GPUs; the request accepts whole device or MIG")


def test_a_mig_profile_below_the_smallest_accepted_is_refused() -> None:
    req = replace(demo_request(), accepted_offer_kinds=("mig",), min_mig_profile="2g.35gb")
    small = replace(demo_premium(), isolation_class="mig", mig_profile="1g.35gb")
    (failure,) = hard_requirement_failures(request=req, bid=small)
    assert failure.code == "isolation_class"
    assert "1g.35gb, smaller than the smallest accepted profile 2g.35gb" in failure.message
    assert codes(replace(small, mig_profile="3g.71gb"), req) == []


def test_the_wrong_region_demo_bid_fails_only_on_region() -> None:
    assert codes(demo_wrong_region()) == ["region"]


def test_effective_cost_scores_relative_to_the_best_price() -> None:
    cost = compute_cost(request=demo_request(), bid=demo_premium())
    eff = cost.effective_price_per_useful_gpu_hour
    assert eff is not None
    assert score_effective_cost(cost=cost, best_effective=eff).score == 100
    half = score_effective_cost(cost=cost, best_effective=eff / 2)
    assert half.score == pytest.approx(50, abs=0.01)
    assert "per useful GPU-hour" in half.rationale and "goodput" in half.rationale


def test_effective_cost_is_zero_without_useful_work() -> None:
    bid = replace(demo_cheap(), declared_node_mtbf_hours=50.0)
    cost = compute_cost(request=demo_request(), bid=bid)
    result = score_effective_cost(cost=cost, best_effective=2.0)
    assert result.score == 0
    assert "no useful work" in result.rationale


def test_fabric_full_marks_and_named_deductions() -> None:
    req = demo_request()
    assert score_fabric_placement(request=req, bid=demo_premium()).score == 100
    cheap = score_fabric_placement(request=req, bid=demo_cheap())
    assert cheap.score == pytest.approx(42.5)
    for needle in (
        "200 Gb/s per GPU vs 400",
        "not rail-optimised",
        "oversubscribed 2:1",
        "2 leaf switches vs max 1",
        "no topology-aware",
        "no gang",
    ):
        assert needle in cheap.rationale


def test_fabric_gives_half_credit_for_unstated_leaf_switches() -> None:
    bid = replace(demo_premium(), leaf_switches=None)
    assert score_fabric_placement(request=demo_request(), bid=bid).score == 95
    no_cap = replace(demo_request(), max_leaf_switches=None)
    assert score_fabric_placement(request=no_cap, bid=bid).score == 100


def test_fabric_scales_a_small_nvlink_domain() -> None:
    bid = replace(demo_premium(), nvlink_domain_size=4)
    result = score_fabric_placement(request=demo_request(), bid=bid)
    assert result.score == pytest.approx(92.5)
    assert "NVLink domain 4 vs 8" in result.rationale


def test_incident_sla_rewards_spares_coverage_and_fast_clocks() -> None:
    req = demo_request()
    assert score_incident_sla(request=req, bid=demo_premium()).score == 100
    cheap = score_incident_sla(request=req, bid=demo_cheap())
    assert cheap.score < 20
    for needle in ("72 h", "no spares", "business hours", "health checks", "S1 4 h vs 30 min"):
        assert needle in cheap.rationale


def test_incident_sla_names_the_questionnaire_rows_that_miss_the_targets() -> None:
    req = replace(demo_request(), target_restore_minutes={"S1": 240.0})
    bid = replace(
        demo_premium(),
        response_minutes={"S1": 60.0},
        restore_minutes={"S1": 480.0, "S2": 600.0},
        clock_rows={"S1.response": "Detect", "S1.restore": "Repair or replace"},
    )
    result = score_incident_sla(request=req, bid=bid)
    # two comparable clocks, each at half the target pace: 10 of 20 points lost
    assert result.score == pytest.approx(90.0)
    assert "first response S1 1 h vs 30 min (Detect)" in result.rationale
    assert "restore S1 8 h vs 4 h (Repair or replace)" in result.rationale
    assert "S2" not in result.rationale  # no restore target for S2: not compared


def test_incident_sla_restore_clocks_within_target_keep_full_marks() -> None:
    req = replace(demo_request(), target_restore_minutes={"S1": 240.0, "S2": 720.0})
    bid = replace(demo_premium(), restore_minutes={"S1": 240.0, "S2": 60.0})
    result = score_incident_sla(request=req, bid=bid)
    assert result.score == 100
    assert "response and restore clocks meet targets" in result.rationale


def test_incident_sla_skips_clocks_it_cannot_compare() -> None:
    req = replace(demo_request(), target_response_minutes=None)
    bid = replace(demo_premium(), coverage="extended")
    # coverage loses 7.5 of 80 comparable points
    assert score_incident_sla(request=req, bid=bid).score == pytest.approx(
        100 * 72.5 / 80, abs=0.01
    )


def test_acceptance_terms() -> None:
    assert score_acceptance_terms(bid=demo_premium()).score == 100
    assert score_acceptance_terms(bid=demo_cheap()).score == 40
    silent = replace(demo_premium(), acknowledgement="not_acknowledged", evidence_shared=False)
    assert score_acceptance_terms(bid=silent).score == 0
    many = replace(
        demo_premium(), acknowledgement="accepted_with_exceptions", acknowledgement_exceptions=9
    )
    assert score_acceptance_terms(bid=many).score == 60  # floor of 20 of 60, plus evidence


def test_an_acceptance_run_on_the_wrong_path_costs_like_an_exception_but_is_not_called_one() -> (
    None
):
    """GIVEN a provider that accepted the fixture but whose own acceptance run used another
    transport THEN that costs as much as one exception, and the rationale names the path
    without calling it an exception the provider took to the terms."""
    message = "the fixture needs IB verbs; the provider's run used TCP sockets"
    accepted = replace(demo_premium(), execution_path_mismatch=message)
    scored = score_acceptance_terms(bid=accepted)
    assert scored.score == pytest.approx(100 * (50 / 60 * 60 + 40) / 100)  # 50 of 60, plus 40
    assert "exception" not in scored.rationale
    assert "path does not match" in scored.rationale and message in scored.rationale
    two = replace(
        accepted, acknowledgement="accepted_with_exceptions", acknowledgement_exceptions=1
    )
    both = score_acceptance_terms(bid=two)
    assert "accepted with 1 exception(s)" in both.rationale and message in both.rationale
    assert both.score == pytest.approx(100 * (40 / 60 * 60 + 40) / 100)  # two penalties


def test_delivery_risk() -> None:
    req = demo_request()
    assert score_delivery_risk(request=req, bid=demo_premium()).score == 100
    building = replace(
        demo_premium(), site_readiness="under_construction", declared_node_mtbf_hours=None
    )
    result = score_delivery_risk(request=req, bid=building)
    assert result.score == 25
    assert "under construction" in result.rationale and "MTBF not declared" in result.rationale


def test_criteria_come_in_the_declared_order() -> None:
    req, bid = demo_request(), demo_premium()
    cost = compute_cost(request=req, bid=bid)
    names = [c.name for c in score_criteria(request=req, bid=bid, cost=cost, best_effective=None)]
    assert tuple(names) == CRITERIA
