"""Usage lines against what the contract allows: each difference with its line and its rule.

All sums are integers (micro-dollars, micro-GPU-minutes, seconds); a line's allowed amount is
worked out once per line, rounded to the micro-dollar, by `rules.pricer()`; totals are rounded to
the cent only when shown. The contract and its reading are in `terms.py`, the rules and what
they allow in `rules.py`, the node-time already billed in `claims.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engine.billing.lines import EGRESS, FEE, GPU, UsageLine
from engine.billing.rules import (
    AFTER_TERM,
    AMOUNT,
    BEFORE_CLOCK,
    CURRENCY,
    DOUBLE_BILLED,
    EGRESS_NOT_BID,
    EGRESS_OVER,
    FEES_NOT_BID,
    FEES_OVER,
    HALF_CENT,
    HOUR_UNITS,
    LINE_RULES,
    NEGATIVE,
    NODE_OUT,
    NOT_BID,
    OVER_BID,
    OVER_PERIOD,
    PERIOD_ORDER,
    RATE,
    RULES,
    TOO_MANY_GPUS,
    UNKNOWN_NODE,
    Claims,
    currency_text,
    money,
    pricer,
    rate_text,
)
from engine.billing.terms import Contract, Outage, Terms

__all__ = [
    "AFTER_TERM",
    "AMOUNT",
    "BEFORE_CLOCK",
    "CURRENCY",
    "DOUBLE_BILLED",
    "EGRESS_NOT_BID",
    "EGRESS_OVER",
    "FEES_NOT_BID",
    "FEES_OVER",
    "HALF_CENT",
    "HOUR_UNITS",
    "LINE_RULES",
    "MAX_LISTED",
    "NEGATIVE",
    "NODE_OUT",
    "OVER_PERIOD",
    "PERIOD_ORDER",
    "RATE",
    "RULES",
    "TOO_MANY_GPUS",
    "UNKNOWN_NODE",
    "Contract",
    "Difference",
    "Outage",
    "Result",
    "money",
    "rate_text",
    "reconcile",
]

# Differences kept for display when the caller names no cap: a file repeating one line
# 200,000 times is 200,000 differences, all counted, these many listed.
MAX_LISTED = 50_000


@dataclass(frozen=True, slots=True)
class Difference:
    line: int
    rule: str
    message: str
    billed: int  # micro-dollars
    allowed: int


NO_START, NO_END = 1 << 62, -(1 << 62)


@dataclass
class Result:
    lines: int = 0
    billed: dict[str, int] = field(default_factory=lambda: {GPU: 0, EGRESS: 0, FEE: 0})
    allowed: dict[str, int] = field(default_factory=lambda: {GPU: 0, EGRESS: 0, FEE: 0})
    gpu_hours: int = 0  # micro-GPU-minutes billed
    credits: int = 0
    # The GPU lines' span (epoch seconds): which months' SLA credits this bill answers for.
    first_start: int | None = None
    last_end: int | None = None
    by_rule: dict[str, int] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    listed_all: bool = True

    @property
    def billed_total(self) -> int:
        return sum(self.billed.values())

    @property
    def allowed_total(self) -> int:
        return sum(self.allowed.values())

    @property
    def net(self) -> int:
        """What the buyer owes: what the contract allows, less the credits due."""
        return self.allowed_total - max(self.credits, 0)


#: Told of each line once it is checked: the line, billed and allowed micro-dollars, its rules.
LineHook = Callable[[UsageLine, int, int, list[str]], None]


class _Notes:
    """Counts every difference by rule and keeps the first `max_listed` of them; remembers the
    rules of the line being checked, for a caller that exports every line with its findings."""

    def __init__(self, result: Result, max_listed: int | None) -> None:
        self.result, self.max_listed = result, max_listed
        self.line = -1
        self.rules: list[str] = []

    def rules_of(self, line: int) -> list[str]:
        return self.rules if line == self.line else []

    def __call__(self, line: int, rule: str, message: str, billed: int, allowed: int) -> None:
        if line != self.line:
            self.line, self.rules = line, []
        self.rules.append(rule)
        result = self.result
        result.by_rule[rule] = result.by_rule.get(rule, 0) + 1
        if self.max_listed is None or len(result.differences) < self.max_listed:
            result.differences.append(Difference(line, rule, message, billed, allowed))
        else:
            result.listed_all = False


class _Extras:
    """Egress and fee lines: allowed up to what the bid said for the whole term. Only positive
    amounts in the contract's currency count against the cap, so a negative line cannot make
    room for more than the bid."""

    def __init__(self, terms: Terms, result: Result, note: _Notes) -> None:
        self.terms, self.result, self.note = terms, result, note
        self.claimed = {EGRESS: 0, FEE: 0}

    def __call__(self, u: UsageLine) -> int:
        """Record the line; what it is allowed."""
        amount, cap = u.amount or 0, self.terms.caps[u.kind]
        self.result.billed[u.kind] += amount
        foreign = currency_text(terms=self.terms, line=u)
        if foreign is not None or amount < 0:
            if foreign is not None:
                self.note(u.line, CURRENCY, foreign, amount, 0)
            if amount < 0:
                self.note(u.line, NEGATIVE, f"negative {u.kind} amount {money(amount)}.", amount, 0)
            return 0
        limit = max(cap or 0, 0)
        before = self.claimed[u.kind]
        after = self.claimed[u.kind] = before + amount
        allowed = max(min(after, limit) - min(before, limit), 0)
        self.result.allowed[u.kind] += allowed
        if after > limit and amount > allowed:
            if not cap:
                bid = "the bid declared none" if cap is None else "the bid is 0.00"
                rule = NOT_BID[u.kind]
            else:
                bid, rule = f"the bid is {money(cap)} for the term", OVER_BID[u.kind]
            message = f"{u.kind} billed so far is {money(after)}; {bid}."
            self.note(u.line, rule, message, amount, allowed)
        return allowed


def reconcile(
    lines: Iterable[UsageLine],
    contract: Contract,
    *,
    max_listed: int | None = MAX_LISTED,
    on_line: LineHook | None = None,
) -> Result:
    """Check every line; `max_listed` caps the differences kept (all are still counted; None
    keeps them all). `on_line`, when given, is told of every line as it is checked (an export
    of every line with what it was allowed)."""
    result = Result(credits=max(contract.credits, 0))
    terms, note = Terms.of(contract), _Notes(result, max_listed)
    extra, price = _Extras(terms, result, note), pricer(terms=terms, claims=Claims())
    count = gpu_quantity = gpu_billed = gpu_allowed = 0  # locals: the loop runs once per line
    period_lo, period_hi = NO_START, NO_END
    for u in lines:
        count += 1
        if u.kind != GPU:
            allowed = extra(u)
            if on_line is not None:
                on_line(u, u.amount or 0, allowed, note.rules_of(u.line))
            continue
        amount, allowed, priced = price(u)
        gpu_quantity += u.quantity
        gpu_billed += amount
        gpu_allowed += allowed
        if u.start < period_lo:
            period_lo = u.start
        if u.end > period_hi:
            period_hi = u.end
        if priced is not None:
            for rule, check in LINE_RULES:
                message = check(terms, priced)
                if message is not None:
                    note(u.line, rule, message, amount, allowed)
        if on_line is not None:
            on_line(u, amount, allowed, note.rules_of(u.line))
    result.lines = count
    result.gpu_hours = gpu_quantity
    if period_hi != NO_END:
        result.first_start, result.last_end = period_lo, period_hi
    result.billed[GPU] += gpu_billed
    result.allowed[GPU] += gpu_allowed
    return result
