"""Properties the cost model must keep for any plausible workload and bid."""

from dataclasses import replace
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.scoring import (
    BidOffer,
    RequestProfile,
    compute_cost,
    daly_interval,
    first_order_goodput,
    young_interval,
)
from engine.scoring.demo import demo_cheap, demo_premium, demo_request

checkpoint = st.floats(min_value=1.0, max_value=3_600.0)
restart = st.floats(min_value=0.0, max_value=7_200.0)
node_mtbf = st.floats(min_value=50.0, max_value=200_000.0)
nodes = st.integers(min_value=1, max_value=512)
replacement_h = st.floats(min_value=0.0, max_value=240.0)
price = st.decimals(min_value=Decimal("0.10"), max_value=Decimal("20"), places=2)
fees = st.decimals(min_value=Decimal("0"), max_value=Decimal("100000"), places=2)
coverage = st.sampled_from(["24x7", "extended", "business_hours"])
Scenario = tuple[RequestProfile, BidOffer]
template = st.sampled_from([demo_cheap(), demo_premium()])


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    n = draw(nodes)
    req = replace(
        demo_request(),
        nodes=n,
        gpu_count=8 * n,
        checkpoint_write_seconds=draw(checkpoint),
        restart_seconds=draw(restart),
    )
    bid = replace(
        draw(template),
        nodes=n,
        declared_node_mtbf_hours=draw(node_mtbf),
        node_replacement_hours=draw(replacement_h),
        coverage=draw(coverage),
        price_per_gpu_hour=draw(price),
        fees_usd=draw(fees),
        egress_usd=draw(fees),
    )
    return req, bid


@given(scenarios())
def test_goodput_stays_within_zero_and_one(scenario: Scenario) -> None:
    req, bid = scenario
    assert 0.0 <= compute_cost(request=req, bid=bid).goodput <= 1.0


@given(scenarios(), st.floats(min_value=1.0, max_value=10.0))
def test_goodput_never_drops_with_a_longer_mtbf(scenario: Scenario, factor: float) -> None:
    req, bid = scenario
    assert bid.declared_node_mtbf_hours is not None
    longer = replace(bid, declared_node_mtbf_hours=bid.declared_node_mtbf_hours * factor)
    before = compute_cost(request=req, bid=bid).goodput
    assert compute_cost(request=req, bid=longer).goodput >= before - 1e-12


@given(
    scenarios(),
    st.floats(min_value=0.0, max_value=72.0),
    st.floats(min_value=0.0, max_value=3_600.0),
)
def test_goodput_never_rises_with_a_slower_restart(
    scenario: Scenario, extra_h: float, extra_s: float
) -> None:
    req, bid = scenario
    before = compute_cost(request=req, bid=bid).goodput
    slower_repair = replace(bid, node_replacement_hours=bid.node_replacement_hours + extra_h)
    slower_load = replace(req, restart_seconds=req.restart_seconds + extra_s)
    assert compute_cost(request=req, bid=slower_repair).goodput <= before + 1e-12
    assert compute_cost(request=slower_load, bid=bid).goodput <= before + 1e-12


@given(scenarios())
def test_effective_price_is_never_below_list_price(scenario: Scenario) -> None:
    req, bid = scenario
    cost = compute_cost(request=req, bid=bid)
    eff = cost.effective_price_per_useful_gpu_hour
    if cost.goodput == 0:
        assert eff is None
    else:
        assert eff is not None
        assert eff >= float(bid.price_per_gpu_hour) * (1 - 1e-12)


@settings(max_examples=300)
@given(checkpoint, st.floats(min_value=1.0, max_value=1e8))
def test_intervals_are_positive_and_daly_stays_near_young(c: float, m: float) -> None:
    t_daly, t_young = daly_interval(c, m), young_interval(c, m)
    assert t_daly > 0
    if c < m / 100:  # the regime where both approximations are meant to be used
        assert abs(t_daly - t_young) / t_young < 0.1
    assert (
        0.0
        <= first_order_goodput(
            interval_seconds=t_daly, checkpoint_seconds=c, mtbf_seconds=m, restart_seconds=0
        )
        <= 1.0
    )
