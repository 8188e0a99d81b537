"""One test per reconciliation rule that refuses an impossible charge (no database): each
finding names its line and rule, and only the possible part of a line is allowed."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from engine.billing import Contract, Mapping, UsageLine, money, open_table, read_lines, reconcile

H = 3600
T0 = int(datetime(2026, 3, 1, tzinfo=UTC).timestamp())
RATE = 2_500_000  # 2.50 USD per GPU-hour
GPU_HOUR = 60_000_000  # micro-GPU-minutes


def gpu(
    line: int,
    hour: float,
    node: str = "n1",
    *,
    hours: float = 1,
    gpus: int = 8,
    quantity: int | None = None,
    amount: int | None = None,
    currency: str = "",
) -> UsageLine:
    start, end = T0 + int(hour * H), T0 + int((hour + hours) * H)
    qty = quantity if quantity is not None else int(gpus * hours * GPU_HOUR)
    billed = amount if amount is not None else qty * RATE // GPU_HOUR
    return UsageLine(line, start, end, node, gpus, qty, RATE, billed, "gpu", currency)


def extra(line: int, kind: str, amount: int, currency: str = "") -> UsageLine:
    return UsageLine(line, T0, T0, "", 0, 0, None, amount, kind, currency)


def contract(**kw) -> Contract:
    base = {
        "clock_start": T0,
        "term_end": T0 + 48 * H,
        "rate": RATE,
        "fees": 100_000_000,
        "egress": 50_000_000,
        "nodes": ("n1", "n2"),
        "node_gpus": 8,
    }
    return Contract(**{**base, **kw})


def rules(result) -> list[tuple[int, str]]:
    return [(d.line, d.rule) for d in result.differences]


def test_a_repeated_line_is_billed_once_and_the_repeat_is_refused():
    result = reconcile([gpu(2, 0), gpu(3, 0), gpu(4, 1)], contract())
    assert rules(result) == [(3, "double-billed")]
    assert "n1 is already billed for this time from line 2: 8 GPU-hours" in (
        result.differences[0].message
    )
    assert money(result.allowed_total) == "40.00" and money(result.billed_total) == "60.00"


def test_an_overlapping_period_is_refused_only_for_the_overlap():
    result = reconcile([gpu(2, 0, hours=2), gpu(3, 1, hours=2)], contract())
    assert rules(result) == [(3, "double-billed")]
    assert result.differences[0].allowed == 20_000_000  # its second hour, not its first
    assert money(result.allowed_total) == "60.00"


def test_an_earlier_period_billed_after_a_later_one_is_checked_too():
    result = reconcile([gpu(2, 5), gpu(3, 0, hours=6)], contract())
    assert rules(result) == [(3, "double-billed")]
    assert money(result.allowed_total) == "120.00"  # six hours of one node, once


def test_a_node_shared_by_two_lines_within_its_gpus_is_not_double_billed():
    lines = [gpu(2, 0, gpus=4), gpu(3, 0, gpus=4), gpu(4, 0, gpus=4)]
    result = reconcile(lines, contract())
    assert rules(result) == [(4, "double-billed")]  # the node has 8 GPUs, not 12
    assert money(result.allowed_total) == "20.00"


def test_more_gpus_than_the_node_has_are_refused_above_the_node():
    result = reconcile([gpu(2, 0, gpus=1000)], contract())
    assert rules(result) == [(2, "too-many-gpus")]
    assert result.differences[0].message == (
        "1,000 GPUs on one node; a node has 8, the allocation 16."
    )
    assert money(result.billed_total) == "2,500.00" and money(result.allowed_total) == "20.00"


def test_a_node_that_is_not_the_contracts_is_refused():
    lines = [gpu(2, 0, "n9"), gpu(3, 0, "N1.hel2.example"), gpu(4, 1, "")]
    result = reconcile(lines, contract())
    assert rules(result) == [(2, "unknown-node"), (4, "unknown-node")]
    assert result.differences[0].message == (
        "node n9 is not a node of this allocation: the contract's nodes are n1, n2."
    )
    assert money(result.allowed_total) == "20.00"  # n1 under its host name only


def test_without_node_names_the_allocation_admits_as_many_nodes_as_it_has():
    lines = [gpu(2, 0, "a"), gpu(3, 0, "b"), gpu(4, 0, "c"), gpu(5, 1, "a")]
    result = reconcile(lines, contract(nodes=(), node_count=2))
    assert rules(result) == [(4, "unknown-node")]
    assert result.differences[0].message == (
        "node c is not a node of this allocation: the allocation has 2 nodes, billed as a, b."
    )


def test_nodes_the_burn_in_did_not_name_are_admitted_up_to_the_allocations_count():
    lines = [gpu(2, 0, "n1"), gpu(3, 0, "x"), gpu(4, 0, "y"), gpu(5, 1, "x")]
    result = reconcile(lines, contract(nodes=("n1",), node_count=2))
    assert rules(result) == [(4, "unknown-node")]
    assert result.differences[0].message.endswith(
        "the contract's nodes are n1 and 1 other, billed as x."
    )


def test_more_gpu_hours_than_the_period_holds_are_refused():
    result = reconcile([gpu(2, 0, quantity=500 * GPU_HOUR)], contract())
    assert rules(result) == [(2, "over-period")]
    assert result.differences[0].message == (
        "500 GPU-hours in a period of 1 h on 8 GPUs, which holds at most 8 GPU-hours."
    )
    assert money(result.allowed_total) == "20.00"


def test_a_line_with_no_length_is_allowed_nothing():
    result = reconcile([gpu(2, 3, hours=0, quantity=8 * GPU_HOUR)], contract())
    assert rules(result) == [(2, "over-period")]
    assert result.allowed_total == 0


def test_a_period_straddling_the_whole_term_is_allowed_only_inside_it():
    result = reconcile([gpu(2, -2, hours=52)], contract())
    assert rules(result) == [(2, "before-clock"), (2, "after-term")]
    assert money(result.allowed_total) == "960.00"  # the 48 hours of the term × 8 × 2.50


def test_a_period_ending_before_it_starts_is_allowed_nothing():
    line = gpu(2, 3)
    backwards = UsageLine(2, line.end, line.start, "n1", 8, 8 * GPU_HOUR, RATE, 20_000_000, "gpu")
    result = reconcile([backwards], contract())
    assert rules(result) == [(2, "period-order")]
    assert result.allowed_total == 0


def test_a_line_in_another_currency_is_refused():
    result = reconcile([gpu(2, 0, currency="EUR"), gpu(3, 1, currency="usd")], contract())
    assert rules(result) == [(2, "currency")]
    assert result.differences[0].message == "billed in EUR; the contract is in USD."
    assert money(result.allowed_total) == "20.00"


def test_negative_quantities_and_amounts_are_findings_and_never_lower_the_allowed():
    lines = [gpu(2, 0), gpu(3, 1, quantity=-8 * GPU_HOUR, amount=-20_000_000)]
    result = reconcile(lines, contract())
    assert rules(result) == [(3, "negative")]
    assert result.differences[0].message.startswith("negative quantity and amount")
    assert money(result.allowed_total) == "20.00" and money(result.billed_total) == "0.00"


def test_the_amount_rule_holds_within_half_a_cent_either_way():
    lines = [gpu(2, 0, amount=20_005_000), gpu(3, 1, amount=19_994_999), gpu(4, 2, amount=0)]
    result = reconcile(lines, contract())
    assert rules(result) == [(3, "amount"), (4, "amount")]
    assert money(result.allowed_total) == "60.00"  # quantity × the agreed rate


def test_egress_and_fees_the_bid_did_not_declare_are_refused_line_by_line():
    lines = [extra(2, "egress", 350_000_000), extra(3, "fee", 10_000_000), extra(4, "fee", 5)]
    result = reconcile(lines, contract(egress=0, fees=None))
    assert rules(result) == [(2, "egress-not-bid"), (3, "fees-not-bid"), (4, "fees-not-bid")]
    assert result.differences[0].message == "egress billed so far is 350.00; the bid is 0.00."
    assert result.differences[1].message == "fee billed so far is 10.00; the bid declared none."
    assert result.allowed_total == 0


def test_a_negative_egress_line_makes_no_room_under_the_cap():
    lines = [extra(2, "egress", -100_000_000), extra(3, "egress", 120_000_000)]
    result = reconcile([*lines, extra(4, "egress", 1_000_000, "EUR")], contract())
    assert rules(result) == [(2, "negative"), (3, "egress-over-bid"), (4, "currency")]
    assert money(result.allowed["egress"]) == "50.00"


def test_credits_and_the_allowed_total_are_never_negative():
    result = reconcile([gpu(2, 0, quantity=-GPU_HOUR, amount=-1)], contract(credits=-5_000_000))
    assert result.credits == 0 and result.allowed_total == 0 and result.net == 0


def test_a_file_repeating_one_line_200000_times_is_refused_line_by_line_in_bounded_time():
    row = "2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,n1,8,1,2.50,20.00\n"
    data = ("start,end,node,gpus,hours,rate,amount\n" + row * 200_000).encode()
    mapping = Mapping(
        columns={"period_start": "start", "period_end": "end", "node": "node", "gpus": "gpus"}
        | {"quantity": "hours", "rate": "rate", "amount": "amount"}
    )
    began = time.perf_counter()
    result = reconcile(read_lines(open_table(data), mapping), contract(), max_listed=1000)
    seconds = time.perf_counter() - began
    assert result.lines == 200_000
    assert result.by_rule == {"double-billed": 199_999}
    assert money(result.billed_total) == "4,000,000.00"
    assert money(result.allowed_total) == "20.00"  # what one line could be allowed
    assert len(result.differences) == 1000 and result.listed_all is False
    assert result.differences[0].line == 3
    assert seconds < 30, f"{seconds:.1f} s for 200,000 lines"


def test_a_line_whose_end_the_reader_works_out_holds_its_whole_quantity():
    data = b"start,node,gpus,hours,rate,amount\n2026-03-01T00:00:00Z,n1,8,0.333333,2.50,6.67\n"
    mapping = Mapping(
        columns={"period_start": "start", "node": "node", "gpus": "gpus", "quantity": "hours"}
        | {"rate": "rate", "amount": "amount"}
    )
    (line,) = read_lines(open_table(data), mapping)
    assert line.end - line.start == 1200  # 0.333333 h is 1,199.9988 s: the period rounds up
    result = reconcile([line], contract())
    assert rules(result) == [] and result.allowed_total == 6_666_660  # 2.666664 GPU-h × 2.50


def test_a_degraded_s2_at_an_agreed_share_is_out_for_that_share_and_a_full_outage_once():
    """Terms at 50 %: a 4-hour S2 on node-b is 2 h not billed; an S3 from its second to its
    third hour on the same node is out in full there, once: 1 h × 0.5 + 1 h + 2 h × 0.5 = 2.5 h."""
    from engine.billing.terms import Outage, Outages

    h = 3600
    s2 = Outage("node-b", 0, 4 * h, "incident #1 (S2, 50 % of it)", permille=500)
    assert Outages([s2]).overlap("node-b", 0, 4 * h) == (2 * h, ["incident #1 (S2, 50 % of it)"])
    assert Outages([s2]).overlap("node-a", 0, 4 * h) == (0, [])
    s3 = Outage("node-b", h, 2 * h, "incident #2 (S3)")
    out, labels = Outages([s2, s3]).overlap("node-b", 0, 4 * h)
    assert out == int(2.5 * h)
    assert labels == [
        "incident #1 (S2, 50 % of it)",
        "incident #1 (S2, 50 % of it), incident #2 (S3)",
    ]


def test_a_negative_quantity_is_read_and_listed_not_a_refused_bill():
    """A refund written as usage with a negative quantity, in a simply mapped export: the bill
    is read to its end, the line is listed by the negative rule and allowed nothing."""
    data = (
        b"start,node,gpus,hours,rate,amount\n"
        b"2026-03-01T00:00:00Z,n1,8,1,2.50,20.00\n"
        b"2026-03-01T01:00:00Z,n1,8,-1,2.50,-20.00\n"
    )
    mapping = Mapping(
        columns={"period_start": "start", "node": "node", "gpus": "gpus", "quantity": "hours"}
        | {"rate": "rate", "amount": "amount"}
    )
    first, refund = read_lines(open_table(data), mapping)
    assert refund.end - refund.start == 3600  # its period holds the hour it corrects
    result = reconcile([first, refund], contract())
    assert rules(result) == [(3, "negative")]
    assert result.allowed_total == 20_000_000
