"""Cost per accepted result: what the buyer paid after credits over the results the workload
produced, the buyer naming the result. The seed's "workload numerator, full-cost denominator".

- an accepted training step: a (job, step) row of the result file marked accepted, counted once
  however often a restart replayed it;
- a trained token: the tokens of those steps, priced per million;
- a completed run: a job the scheduler records as finished successfully.

The prediction is the award's predicted cost per useful GPU-hour over the buyer's expected
results per GPU-hour. The difference is explained by the three factors it multiplies out to:
the price paid per useful GPU-hour, the share of useful GPU-hours the jobs ran on, and the
results per GPU-hour the jobs ran (after replays and rejections).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from engine.formatting import cents, fixed, percent, rounded, usd

from .model import Job, Results

UNITS = {
    "step": ("accepted training step", 1),
    "token": ("million trained tokens", 1_000_000),
    "run": ("completed run", 1),
}


@dataclass(frozen=True, slots=True)
class Count:
    accepted: int
    replayed: int = 0  # rows of a step already counted: redone after a restart
    rejected: int = 0  # steps never accepted


def count_results(unit: str, *, results: Results | None, jobs: Sequence[Job]) -> Count:
    if unit == "run":
        return Count(sum(1 for j in jobs if j.completed))
    rows = results.rows if results else ()
    seen: set[tuple[str, int]] = set()
    refused: set[tuple[str, int]] = set()
    accepted = replayed = 0
    for row in sorted(rows, key=lambda r: (r.at, r.line)):
        key = (row.job, row.step)
        if not row.accepted:
            refused.add(key)
        elif key in seen:
            replayed += 1
        else:
            seen.add(key)
            accepted += row.tokens if unit == "token" else 1
    return Count(accepted, replayed, len(refused - seen))


@dataclass(frozen=True, slots=True)
class CostPerResult:
    unit: str
    label: str
    count: Count
    cost: Decimal | None
    working: str
    predicted: Decimal | None
    predicted_working: str
    reasons: tuple[str, ...]


def cost_per_result(
    *,
    unit: str,
    count: Count,
    paid: Decimal,
    useful_gpu_hours: Decimal | None,
    in_use_gpu_hours: Decimal,
    predicted_per_useful_gpu_hour: Decimal | None,
    expected_per_gpu_hour: Decimal | None,
) -> CostPerResult:
    label, per = UNITS[unit]
    results = Decimal(count.accepted) / per
    amount = cents(paid)
    cost = rounded(amount / results, places=4) if results else None
    working = (
        f"{usd(amount)} paid after credits ÷ {_n(results)} {label}s = {usd(cost, places=4)}"
        if cost is not None
        else f"no {label} yet"
    )
    predicted, predicted_working = (
        None,
        (
            "no prediction: the buyer named no expected rate"
            if not expected_per_gpu_hour
            else "no prediction: the award has no predicted cost per useful GPU-hour"
        ),
    )
    if predicted_per_useful_gpu_hour is not None and expected_per_gpu_hour:
        predicted = rounded(predicted_per_useful_gpu_hour / expected_per_gpu_hour * per, places=4)
        scale = f" × {per:,}" if per != 1 else ""
        predicted_working = (
            f"{usd(predicted_per_useful_gpu_hour, places=4)} predicted per useful GPU-hour ÷ "
            f"{_n(expected_per_gpu_hour)} {label}s expected per GPU-hour{scale} = "
            f"{usd(predicted, places=4)}"
        )
    reasons = _reasons(
        label, per, count, amount, useful_gpu_hours, in_use_gpu_hours,
        predicted_per_useful_gpu_hour, expected_per_gpu_hour,
    )  # fmt: skip
    return CostPerResult(
        unit, label, count, cost, working, predicted, predicted_working, tuple(reasons)
    )


def _n(value: Decimal | int) -> str:
    text = f"{Decimal(value):,f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _reasons(
    label: str,
    per: int,
    count: Count,
    paid: Decimal,
    useful: Decimal | None,
    in_use: Decimal,
    predicted_rate: Decimal | None,
    expected: Decimal | None,
) -> list[str]:
    out: list[str] = []
    if useful:
        rate = rounded(paid / useful, places=4)
        against = f" against {usd(predicted_rate, places=4)} predicted" if predicted_rate else ""
        out.append(f"Price: {usd(rate, places=4)} paid per useful GPU-hour{against}.")
        out.append(
            f"Use: the jobs ran on {fixed(in_use)} of the {fixed(useful)} useful GPU-hours "
            f"({percent(in_use / useful * 100, places=2)}); the rest was paid for and idle, "
            "queued or reclaimed."
        )
    if in_use:
        made = Decimal(count.accepted) / per / in_use
        against = f", against {_n(expected)} expected" if expected else ""
        out.append(f"Yield: {fixed(made, places=4)} {label}s per GPU-hour the jobs ran{against}.")
    if count.replayed or count.rejected:
        out.append(
            f"Lost work: {count.replayed:,} steps replayed after restarts and "
            f"{count.rejected:,} rejected, paid for without an accepted result."
        )
    return out
