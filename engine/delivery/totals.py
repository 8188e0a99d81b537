"""The term's totals of one reservation: GPU-hours, credits, what was paid and the realised cost
per useful GPU-hour, each with its working.

A total whose inputs would take it past what the terms allow, or below zero, is clamped, and
its working says which input to check instead of printing an amount nobody paid: a statement
then never shows a negative payment next to a working that reaches a different number.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from engine.delivery.model import HOUR, HUNDRED, CreditTerms, Figure, Inputs, Month, Report
from engine.formatting import cents, fixed, percent, rounded, usd

ZERO = Decimal(0)


def credit_cap(*, terms: CreditTerms) -> Decimal:
    """The most a month's credit may be, in % of its fees: the terms' cap, never over 100 %."""
    return min(terms.cap_pct if terms.cap_pct is not None else HUNDRED, HUNDRED)


def _hours(start: datetime, end: datetime) -> Decimal:
    return Decimal(str(round((end - start).total_seconds(), 3))) / HOUR


def prorated_extras(*, inputs: Inputs, start: datetime, end: datetime, as_of: datetime) -> Figure:
    """The term's fees and egress, prorated to the accepted hours so far."""
    contracted = _hours(inputs.contracted_start, end)
    accepted_h = _hours(start, as_of)
    share = accepted_h / contracted if contracted > 0 else ZERO
    extras = cents((inputs.fees_usd + inputs.egress_usd) * share)
    return Figure(
        extras,
        f"({usd(inputs.fees_usd)} fees + {usd(inputs.egress_usd)} egress) × {fixed(accepted_h)} h "
        f"accepted ÷ {fixed(contracted)} h contracted = {usd(extras)}",
        unit="usd",
    )


def applied_credits(*, months: list[Month], billed: Decimal | None, terms: CreditTerms) -> Figure:
    """The months' credits, as far as the bill allows: the terms cap a credit at a share of the
    fees, so the credits against a reconciled bill never exceed that share of what it allows.
    Credits beyond it mean the incidents or the bills are wrong; the working says which."""
    due = sum((m.credit.value or ZERO for m in months), ZERO)
    text = f"{' + '.join(usd(m.credit.value or 0) for m in months) or usd(0)} = {usd(due)}"
    if billed is None:
        return Figure(due, text, unit="usd")
    cap = credit_cap(terms=terms)
    limit = cents(max(billed, ZERO) * cap / HUNDRED)
    if due <= limit:
        return Figure(due, text, unit="usd")
    credited = ", ".join(m.label for m in months if (m.credit.value or ZERO) > 0)
    return Figure(
        limit,
        f"{text} due, more than the {percent(cap)} of the {usd(max(billed, ZERO))} billed that "
        f"the terms allow, so {usd(limit)} applied: check the incidents of {credited} and "
        "whether the reconciled bills cover those months in full",
        unit="usd",
    )


def paid_figure(
    *, fees: Decimal, extras: Decimal, credits: Decimal, billed: Decimal | None
) -> Figure:
    """What the buyer pays: the reconciled bill when there is one, else the contract's figures,
    less the credits; never below zero."""
    if billed is None:
        gross = fees + extras
        text = f"{usd(fees)} at the agreed rate + {usd(extras)} fees and egress − {usd(credits)}"
        check = "the incidents behind the credits"
    elif billed < 0:
        return Figure(
            ZERO,
            f"the reconciled bills come to {usd(-billed)} less than nothing, so {usd(0)}: check "
            "the reconciled bills",
            unit="usd",
        )
    else:
        gross = billed
        text = f"{usd(billed)} billed − {usd(credits)}"
        check = "the reconciled bills and the incidents behind the credits"
    paid = gross - credits
    if paid < 0:
        return Figure(
            ZERO,
            f"{text} credits is below zero, so {usd(0)}: the credits exceed the "
            f"{usd(gross)} charged; check {check}",
            unit="usd",
        )
    return Figure(paid, f"{text} credits = {usd(paid)}", unit="usd")


def useful_figure(*, accepted: Decimal, lost: Decimal) -> Figure:
    """Accepted GPU-hours less those lost to incidents; never below zero."""
    useful = accepted - lost
    if useful < 0:
        return Figure(
            ZERO,
            f"{fixed(lost)} lost GPU-h exceed the {fixed(accepted)} accepted, so 0.00 GPU-h: "
            "check the lost time of the month's incidents",
        )
    return Figure(
        useful, f"{fixed(accepted)} accepted − {fixed(lost)} lost = {fixed(useful)} GPU-h"
    )


def cost_per_useful_gpu_hour(*, paid: Decimal, useful_gpu_hours: Decimal) -> Figure:
    """The realised cost: what was paid over the GPU-hours that did useful work. Worked from
    the amounts as the working prints them (the cent, two places of GPU-hours), so anyone
    dividing the printed numbers reaches the printed price."""
    useful = rounded(useful_gpu_hours, places=2)
    if useful <= 0:
        return Figure(None, "no useful GPU-hours yet", unit="usd_rate")
    if paid < 0:
        return Figure(
            None, f"paid {usd(paid)} is below zero: check the bills and credits", unit="usd_rate"
        )
    amount = cents(paid)
    cost = rounded(amount / useful, places=4)
    return Figure(
        cost,
        f"{usd(amount)} ÷ {fixed(useful)} useful GPU-h = {usd(cost, places=4)} / GPU-h",
        unit="usd_rate",
    )


def _sum(months: list[Month], attr: str) -> Decimal:
    return sum((getattr(m, attr).value or ZERO for m in months), ZERO)


def term_totals(
    *,
    inputs: Inputs,
    months: list[Month],
    start: datetime,
    end: datetime,
    as_of: datetime,
    billed_usd: Decimal | None,
    availability_pct: Figure,
) -> Report:
    """The report over the term so far, from its months (nodes and notes are added after)."""
    accepted, lost, fees = (
        _sum(months, k) for k in ("accepted_gpu_hours", "lost_gpu_hours", "fees")
    )
    extras = prorated_extras(inputs=inputs, start=start, end=end, as_of=as_of)
    credits = applied_credits(months=months, billed=billed_usd, terms=inputs.terms)
    paid = paid_figure(
        fees=fees, extras=extras.value or ZERO, credits=credits.value or ZERO, billed=billed_usd
    )
    useful = useful_figure(accepted=accepted, lost=lost)
    due = _sum(months, "credit")
    gross = billed_usd if billed_usd is not None else fees + (extras.value or ZERO)
    # A clamped total's working names the input to check; the notes carry it to every page.
    clamped = [
        ("Credits", credits, (credits.value or ZERO) < due),
        ("Paid", paid, gross < (credits.value or ZERO)),
        ("Useful GPU-hours", useful, lost > accepted),
    ]
    report = Report(
        term_start=start,
        term_end=end,
        as_of=as_of,
        months=months,
        nodes=[],
        accepted_gpu_hours=Figure(
            accepted, " + ".join(fixed(m.accepted_gpu_hours.value or 0) for m in months) or "0"
        ),
        lost_gpu_hours=Figure(lost, " + ".join(fixed(m.lost_gpu_hours.value or 0) for m in months)),
        useful_gpu_hours=useful,
        fees=Figure(fees, " + ".join(usd(m.fees.value or 0) for m in months) or "$0", unit="usd"),
        prorated_extras=extras,
        credits=credits,
        paid=paid,
        cost_per_useful_gpu_hour=cost_per_useful_gpu_hour(
            paid=paid.value or ZERO, useful_gpu_hours=useful.value or ZERO
        ),
        availability_pct=availability_pct,
    )
    report.notes = [f"{name}: {fig.formula}." for name, fig, hit in clamped if hit]
    return report
