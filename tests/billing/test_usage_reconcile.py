"""The reconciler's rules on plain lines (no database): what each rule flags, what is allowed,
and that sums are exact to the cent."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.billing import Contract, Outage, UsageLine, money, reconcile

H = 3600
T0 = int(datetime(2026, 3, 1, tzinfo=UTC).timestamp())
RATE = 2_500_000  # 2.50 USD per GPU-hour


def gpu(
    line: int,
    hour: int,
    node: str = "n1",
    *,
    hours: int = 1,
    rate: int = RATE,
    amount: int | None = None,
) -> UsageLine:
    quantity = 8 * hours * 60_000_000
    billed = amount if amount is not None else 8 * hours * rate
    return UsageLine(
        line, T0 + hour * H, T0 + (hour + hours) * H, node, 8, quantity, rate, billed, "gpu"
    )


def contract(**kw) -> Contract:
    base = {
        "clock_start": T0,
        "term_end": T0 + 48 * H,
        "rate": RATE,
        "fees": 100_000_000,
        "egress": 50_000_000,
    }
    return Contract(**{**base, **kw})


def rules(result) -> list[tuple[int, str]]:
    return [(d.line, d.rule) for d in result.differences]


def test_a_clean_day_has_no_difference_and_allows_what_was_billed():
    result = reconcile([gpu(i + 2, i) for i in range(24)], contract())
    assert rules(result) == []
    assert money(result.billed_total) == money(result.allowed_total) == "480.00"


def test_a_line_across_the_clock_start_is_allowed_only_for_its_accepted_part():
    result = reconcile([gpu(2, 0, hours=2)], contract(clock_start=T0 + H // 2))
    assert rules(result) == [(2, "before-clock")]
    assert money(result.allowed_total) == "30.00"  # 1.5 of 2 hours × 8 GPUs × 2.50


def test_usage_after_the_term_ends_is_flagged():
    result = reconcile([gpu(2, 47, hours=2)], contract())
    assert rules(result) == [(2, "after-term")]
    assert money(result.allowed_total) == "20.00"


def test_an_incident_without_nodes_takes_every_node_out():
    whole = Outage("", T0 + 3 * H, T0 + 4 * H, "incident #7 (S1)")
    result = reconcile(
        [gpu(2, 3, "n1"), gpu(3, 3, "n2"), gpu(4, 4, "n1")], contract(outages=[whole])
    )
    assert rules(result) == [(2, "node-out"), (3, "node-out")]
    assert "incident #7 (S1)" in result.differences[0].message


def test_a_node_outage_leaves_the_other_nodes_billable():
    out = Outage("n2", T0 + 3 * H + 900, T0 + 3 * H + 2700, "incident #8 (S3)")
    result = reconcile([gpu(2, 3, "n1"), gpu(3, 3, "n2")], contract(outages=[out]))
    assert rules(result) == [(3, "node-out")]
    assert "n2 was out for 0.50 h" in result.differences[0].message
    assert money(result.allowed_total) == "30.00"  # n1's 20.00 and half of n2's hour


def test_an_amount_that_is_not_quantity_times_rate_is_flagged_within_half_a_cent():
    lines = [gpu(2, 0, amount=20_004_000), gpu(3, 1, amount=20_010_000)]
    result = reconcile(lines, contract())
    assert rules(result) == [(3, "amount")]
    assert result.differences[0].message == "amount 20.01 is not 8 GPU-hours × 2.50 = 20.00."


def test_egress_and_fees_above_the_bid_are_flagged_on_every_line_past_the_cap():
    def extra(line: int, kind: str, amount: int) -> UsageLine:
        return UsageLine(line, T0, T0, "", 0, 0, None, amount, kind)

    lines = [
        extra(2, "egress", 30_000_000),
        extra(3, "egress", 30_000_000),
        extra(4, "egress", 5_000_000),
        extra(5, "fee", 100_000_000),
    ]
    result = reconcile(lines, contract())
    assert rules(result) == [(3, "egress-over-bid"), (4, "egress-over-bid")]
    assert result.differences[0].message == (
        "egress billed so far is 60.00; the bid is 50.00 for the term."
    )
    assert result.differences[0].allowed == 20_000_000 and result.differences[1].allowed == 0
    assert money(result.allowed["egress"]) == "50.00" and money(result.allowed["fee"]) == "100.00"


def test_per_minute_lines_sum_exactly_and_a_sub_cent_rate_is_shown_in_full():
    minute = [
        UsageLine(i + 2, T0 + 60 * i, T0 + 60 * (i + 1), "n1", 1, 1_000_000, RATE, 41_667, "gpu")
        for i in range(1440)
    ]
    result = reconcile(minute, contract())
    assert rules(result) == []
    assert result.billed_total == result.allowed_total == 1440 * 41_667  # no float drift
    assert money(result.billed_total) == "60.00"
    odd = reconcile([gpu(2, 0, rate=2_500_400)], contract())
    assert odd.differences[0].message == "rate 2.5004 is not the agreed 2.50 per GPU-hour."


def test_credits_come_off_what_is_allowed():
    result = reconcile([gpu(2, 0)], contract(credits=5_000_000))
    assert money(result.net) == "15.00"


def test_listing_stops_at_the_cap_but_counting_does_not():
    lines = [gpu(i, i, rate=3_000_000) for i in range(2, 12)]
    result = reconcile(lines, contract(), max_listed=3)
    assert len(result.differences) == 3 and result.by_rule == {"rate": 10}
    assert result.listed_all is False
