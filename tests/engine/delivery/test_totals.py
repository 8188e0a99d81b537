"""The term's totals never print a payment below zero, never apply more credit than the terms
allow against a bill, and each working reaches the value printed beside it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP
from decimal import Decimal as D
from typing import Any

from engine.delivery.availability import CreditTerms, Inputs, Outage, Tier, compute
from engine.delivery.totals import cost_per_useful_gpu_hour, paid_figure, useful_figure

TIERS = (Tier(D("99.9"), D("10")), Tier(D("99.0"), D("25")), Tier(D("95.0"), D("100")))


def at(month: int, day: int, hour: int = 0) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


def inputs(**kw: Any) -> Inputs:
    """4 nodes × 8 GPUs at $2.00 from 1 Jan to 1 Apr 2026, no fees or egress."""
    base: dict[str, Any] = {
        "term_start": at(1, 1), "term_end": at(4, 1), "contracted_start": at(1, 1),
        "nodes": ("a", "b", "c", "d"), "contracted_nodes": 4, "gpus_per_node": 8,
        "rate": D("2.00"), "fees_usd": D(0), "egress_usd": D(0),
        "terms": CreditTerms(tiers=TIERS), "now": at(6, 1),
    }  # fmt: skip
    return Inputs(**{**base, **kw})


def test_credits_larger_than_the_bill_are_applied_up_to_it_and_name_the_months():
    outage = Outage("i1", "S1", at(1, 10, 8), at(1, 10, 14), breaches=1)
    terms = CreditTerms(tiers=TIERS, breach_credit_pct=D("5"))
    report = compute(inputs(outages=(outage,), terms=terms), billed_usd=D("760"))
    assert report.months[0].credit.value == D("7142.40")  # the month's own figure stands
    assert report.credits.value == D("760.00")
    assert "$11,443.20" not in report.credits.formula
    assert "$7,142.40 + $0.00 + $0.00 = $7,142.40 due" in report.credits.formula
    assert "check the incidents of 2026-01" in report.credits.formula
    assert report.paid.value == 0
    assert report.paid.formula == "$760.00 billed − $760.00 credits = $0.00"
    assert report.cost_per_useful_gpu_hour.value == D("0.0000")
    assert any(note.startswith("Credits: ") for note in report.notes)


def test_the_terms_cap_limits_the_credit_applied_against_a_bill():
    outage = Outage("i1", "S1", at(1, 1), at(1, 3))
    terms = CreditTerms(tiers=TIERS, cap_pct=D("30"))
    report = compute(inputs(outages=(outage,), terms=terms), billed_usd=D("1000"))
    assert report.credits.value == D("300.00")
    assert "more than the 30 % of the $1,000.00 billed" in report.credits.formula
    assert report.paid.value == D("700.00")


def test_credits_within_the_bill_are_applied_in_full_without_a_note():
    outage = Outage("i1", "S1", at(1, 10, 8), at(1, 10, 14))
    report = compute(inputs(outages=(outage,)), billed_usd=D("100000"))
    assert report.credits.value == D("4761.60") and report.notes == []
    assert report.paid.value == D("95238.40")


def test_paid_never_goes_below_zero_and_says_what_to_check():
    paid = paid_figure(fees=D(0), extras=D(0), credits=D("50"), billed=D("-10"))
    assert paid.value == 0 and "check the reconciled bills" in paid.formula
    assert "-$" not in paid.formula and paid.text == "$0.00"
    paid = paid_figure(fees=D(0), extras=D(0), credits=D("50"), billed=D("40"))
    assert paid.formula == (
        "$40.00 billed − $50.00 credits is below zero, so $0.00: the credits exceed the $40.00 "
        "charged; check the reconciled bills and the incidents behind the credits"
    )


def test_lost_time_beyond_the_accepted_leaves_no_useful_hours_and_no_price():
    useful = useful_figure(accepted=D("100"), lost=D("250"))
    assert useful.value == 0 and "250.00 lost GPU-h exceed the 100.00 accepted" in useful.formula
    cost = cost_per_useful_gpu_hour(paid=D("500"), useful_gpu_hours=useful.value or D(0))
    assert cost.value is None and cost.text == "—"


def test_the_cost_working_reaches_the_printed_price_from_the_printed_numbers():
    # A second past the minute, and lost time in thousandths: GPU-hours with more decimals
    # than the working prints.
    outage = Outage("i1", "S2", at(1, 2), at(1, 2, 1), lost_gpu_hours=D("123.456"))
    now = datetime(2026, 1, 3, 5, 7, 1, tzinfo=UTC)
    report = compute(inputs(now=now, outages=(outage,)))
    cost = report.cost_per_useful_gpu_hour
    paid, useful, price = re.fullmatch(
        r"\$([\d,.]+) ÷ ([\d,.]+) useful GPU-h = \$([\d.]+) / GPU-h", cost.formula
    ).groups()
    worked = D(paid.replace(",", "")) / D(useful.replace(",", ""))
    assert worked.quantize(D("0.0001"), rounding=ROUND_HALF_UP) == D(price) == cost.value
    assert cost.text == f"${price}"


def test_each_figure_prints_at_its_units_precision():
    outage = Outage("i1", "S3", at(1, 10, 8), at(1, 10, 9), ("a",))
    report = compute(inputs(outages=(outage,)))
    jan = report.months[0]
    assert jan.availability_pct.text == "99.966 %"
    assert jan.fees.text == "$47,616.00" and jan.credit_pct.text == "0 %"
    assert report.accepted_gpu_hours.text == "69,120.00"
