"""Whatever a bill says, reconciliation never allows more than the contract can: every node of
the allocation busy on all its GPUs for every accepted hour the bill covers, at the agreed rate,
plus the egress and fees the bid declared. Hypothesis makes up the bills: unknown nodes, repeated
and overlapping periods, periods ending before they start, huge GPU counts and quantities, any
rate and amount, negative numbers, other currencies, egress and fee lines, lines outside the
term. No database."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.billing import Contract, Outage, UsageLine, reconcile
from engine.billing.claims import Timeline

H = 3600
T0 = 1_772_323_200  # 2026-03-01 00:00 UTC
NAMES = ("n1", "n2", "n3")


@st.composite
def contracts(draw: st.DrawFn) -> Contract:
    count = draw(st.integers(1, 3))
    clock = T0 + draw(st.integers(0, 6 * H))
    named = draw(st.booleans())
    outages = draw(
        st.lists(
            st.builds(
                Outage,
                st.sampled_from(("", *NAMES)),
                st.integers(T0, T0 + 30 * H),
                st.integers(T0, T0 + 40 * H),
                st.just("incident #1 (S1)"),
            ),
            max_size=2,
        )
    )
    return Contract(
        clock_start=clock,
        term_end=clock + draw(st.integers(0, 48 * H)),
        rate=draw(st.integers(1, 10_000_000)),
        fees=draw(st.one_of(st.none(), st.integers(0, 500_000_000))),
        egress=draw(st.one_of(st.none(), st.integers(0, 500_000_000))),
        outages=outages,
        credits=draw(st.integers(-(10**9), 10**9)),
        nodes=NAMES[:count] if named else (),
        node_count=draw(st.sampled_from((None, count, count + 1))) if named else count,
        node_gpus=draw(st.integers(1, 16)),
    )


NODES = st.sampled_from(("n1", "n2", "n3", "N1", "n1.example", "n4", "ghost", "", "10.0.0.1"))
MONEY = st.one_of(st.none(), st.integers(-(10**12), 10**13))


@st.composite
def lines(draw: st.DrawFn, line: int) -> UsageLine:
    kind = draw(st.sampled_from(("gpu", "gpu", "gpu", "gpu", "egress", "fee")))
    start = T0 + draw(st.integers(-12 * H, 72 * H))
    if kind != "gpu":
        return UsageLine(line, start, start, "", 0, 0, None, draw(MONEY) or 0, kind)
    end = start + draw(st.one_of(st.integers(-2 * H, 12 * H), st.sampled_from((0, H, 900))))
    return UsageLine(
        line,
        start,
        end,
        draw(NODES),
        draw(st.one_of(st.integers(1, 16), st.integers(-2, 5_000))),
        draw(st.one_of(st.integers(-(10**12), 10**15), st.just(8 * 60_000_000))),
        draw(st.one_of(st.none(), st.integers(-10_000_000, 100_000_000))),
        draw(MONEY),
        "gpu",
        draw(st.sampled_from(("", "", "USD", "usd", "EUR"))),
    )


@st.composite
def bills(draw: st.DrawFn) -> list[UsageLine]:
    made = draw(st.lists(st.integers(0, 0), min_size=1, max_size=30))
    out = [draw(lines(i + 2)) for i in range(len(made))]
    repeats = draw(st.lists(st.integers(0, len(out) - 1), max_size=10))
    return out + [_again(out[i], len(out) + 2 + n) for n, i in enumerate(repeats)]


def _again(u: UsageLine, line: int) -> UsageLine:
    return UsageLine(
        line, u.start, u.end, u.node, u.gpus, u.quantity, u.rate, u.amount, u.kind, u.currency
    )


def most_allowed(contract: Contract, bill: list[UsageLine]) -> Fraction:
    """The contract's ceiling for the bill's usage window: all its nodes' GPUs over the accepted
    hours between the bill's first and last moment, plus the declared egress and fees."""
    moments = [t for u in bill if u.kind == "gpu" for t in (u.start, u.end)]
    gpu = Fraction(0)
    if moments:
        lo, hi = max(min(moments), contract.clock_start), min(max(moments), contract.term_end)
        nodes = contract.allocation_nodes or 0
        seconds = max(hi - lo, 0)
        gpu = Fraction(nodes * (contract.node_gpus or 0) * seconds * contract.rate, H)
    return gpu + max(contract.egress or 0, 0) + max(contract.fees or 0, 0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contract=contracts(), bill=bills())
def test_no_bill_is_allowed_more_than_the_contract_can_allow(contract, bill):
    result = reconcile(bill, contract)
    rounding = len(bill)  # each line's allowed amount is rounded to the micro-dollar once
    assert result.allowed_total <= most_allowed(contract, bill) + rounding
    assert all(v >= 0 for v in result.allowed.values())
    assert result.credits >= 0
    numbers = {u.line for u in bill}
    assert all(d.line in numbers and d.allowed >= 0 for d in result.differences)
    assert sum(result.by_rule.values()) == len(result.differences)


@settings(max_examples=100, deadline=None)
@given(contract=contracts(), bill=bills())
def test_a_whole_node_line_billed_again_is_allowed_nothing_more(contract, bill):
    """A line on all of a node's GPUs fills that node's time: its repeats add nothing (a line
    on fewer GPUs leaves room for another job's line on the rest of the node)."""
    once = reconcile(bill, contract).allowed["gpu"]
    full = [u for u in bill if u.kind == "gpu" and u.gpus >= (contract.node_gpus or 0)]
    again = [_again(u, u.line + 1000) for u in full]
    assert reconcile(bill + again, contract).allowed["gpu"] == once


@settings(max_examples=100, deadline=None)
@given(contract=contracts(), bill=bills())
def test_lines_on_nodes_outside_the_allocation_are_allowed_nothing(contract, bill):
    strangers = {"n4", "ghost", "", "10.0.0.1"} | set(NAMES[len(contract.nodes) :])
    foreign = [u for u in bill if u.kind == "gpu" and u.node in strangers]
    contract.node_count = None  # only the named nodes: none is left for another name
    if not contract.nodes:  # the allocation admits the first names it meets: here, none
        foreign = [_again(u, u.line) for u in bill if u.kind == "gpu"]
        contract.node_count = 0
    assert reconcile(foreign, contract).allowed["gpu"] == 0


@settings(max_examples=300, deadline=None)
@given(
    claims=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(1, 12)), max_size=25
    ),
    capacity=st.integers(1, 8),
)
def test_a_nodes_claims_grant_each_second_no_more_than_its_free_gpus(claims, capacity):
    """The node's timeline against a second-by-second count, whatever order lines come in."""
    timeline, busy = Timeline(), [0] * 40
    for line, (start, end, gpus) in enumerate(claims, start=2):
        expected = 0
        for second in range(start, end):
            more = min(gpus, capacity, capacity - busy[second])
            busy[second] += more
            expected += more
        granted, _ = timeline.claim(start, end, gpus, capacity, line)
        assert granted == expected
    rebuilt = [0] * 40
    for s, e, u in zip(timeline.starts, timeline.ends, timeline.used, strict=True):
        assert u > 0
        for second in range(s, e):
            rebuilt[second] += u
    assert rebuilt == busy
    assert all(a <= b for a, b in zip(timeline.ends, timeline.starts[1:], strict=False))
