"""Rank the scored bids again under another weight set, without re-running the cost model.

A finished scoring run holds every bid's score (0-100) per criterion. An evaluator's ranking is
the weighted mean of those scores under the evaluator's own weights, plus two judged criteria
(acceptance terms and delivery risk as the evaluator rates them, 1-5) when the evaluator weighs
them. Imports nothing from Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.scoring import CRITERIA

#: The criteria an evaluator judges, on a 1-5 scale, with a comment each.
JUDGED = ("judged_acceptance_terms", "judged_delivery_risk")
#: Every weight an evaluator sets: the scored criteria, then the judged ones.
VIEW_WEIGHTS = (*CRITERIA, *JUDGED)
JUDGEMENT_MIN, JUDGEMENT_MAX = 1, 5
#: A bid the evaluator has not judged counts as the middle of the scale.
NEUTRAL = 3.0


def judgement_points(value: float) -> float:
    """A 1-5 judgement on the 0-100 scale of the scored criteria (1 → 0, 3 → 50, 5 → 100)."""
    return (value - JUDGEMENT_MIN) * 100 / (JUDGEMENT_MAX - JUDGEMENT_MIN)


@dataclass(frozen=True)
class ScoredBid:
    """One bid as the finished run scored it."""

    key: str  # how the caller identifies the bid (its id as text)
    name: str  # as the page shows it (a provider's name, or 'Bid A')
    qualified: bool
    scores: Mapping[str, float]  # criterion -> 0-100
    effective_price: float | None = None


@dataclass(frozen=True)
class Placed:
    key: str
    name: str
    rank: int
    total: float
    unjudged: tuple[str, ...] = ()  # judged criteria weighed but not rated: counted as neutral


def recombine(
    bids: Sequence[ScoredBid],
    weights: Mapping[str, float],
    judgements: Mapping[str, Mapping[str, float]] | None = None,
) -> list[Placed]:
    """The qualified bids ranked under `weights` (over `VIEW_WEIGHTS`; only ratios matter).

    `judgements` maps a bid's key to its judged criteria (1-5); a weighed criterion left
    unjudged counts as `NEUTRAL`. Ties break as the scoring run breaks them: the lower effective
    price first, then the name. Disqualified bids are never ranked."""
    judgements = judgements or {}
    total_weight = sum(max(float(weights.get(n, 0)), 0.0) for n in VIEW_WEIGHTS)
    if total_weight <= 0:
        return []
    rows = []
    for bid in bids:
        if not bid.qualified:
            continue
        points = 0.0
        unjudged = []
        for name in VIEW_WEIGHTS:
            weight = float(weights.get(name, 0))
            if weight <= 0:
                continue
            if name in JUDGED:
                value = judgements.get(bid.key, {}).get(name)
                if value is None:
                    unjudged.append(name)
                    value = NEUTRAL
                points += weight * judgement_points(value)
            else:
                points += weight * float(bid.scores.get(name, 0))
        total = round(points / total_weight, 2)
        price = bid.effective_price if bid.effective_price is not None else math.inf
        rows.append(((-total, price, bid.name, bid.key), bid, total, tuple(unjudged)))
    rows.sort(key=lambda row: row[0])
    return [
        Placed(bid.key, bid.name, rank, total, unjudged)
        for rank, (_, bid, total, unjudged) in enumerate(rows, start=1)
    ]


def consensus_weights(views: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of the evaluators' weights, each set first made into shares of 100: only ratios
    matter, so an evaluator who writes 400/200 counts as much as one who writes 40/20."""
    if not views:
        return {}
    out = dict.fromkeys(VIEW_WEIGHTS, 0.0)
    for weights in views:
        total = sum(max(float(weights.get(n, 0)), 0.0) for n in VIEW_WEIGHTS)
        if total <= 0:
            continue
        for name in VIEW_WEIGHTS:
            out[name] += max(float(weights.get(name, 0)), 0.0) * 100 / total
    return {name: round(value / len(views), 4) for name, value in out.items()}


def consensus_judgements(
    views: Sequence[Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, float]]:
    """Per bid and judged criterion, the mean of the evaluators who rated it."""
    sums: dict[tuple[str, str], list[float]] = {}
    for judgements in views:
        for key, rated in judgements.items():
            for name, value in rated.items():
                sums.setdefault((key, name), []).append(float(value))
    out: dict[str, dict[str, float]] = {}
    for (key, name), values in sums.items():
        out.setdefault(key, {})[name] = sum(values) / len(values)
    return out


def disagreement(
    firsts: Sequence[tuple[str, str | None]], consensus_first: str | None
) -> str | None:
    """The sentence that says where evaluators disagree on the winner, or None when they agree.

    `firsts` is (evaluator, the bid they rank first) in the order to name them."""
    winners = {first for _, first in firsts if first is not None}
    if len(winners) < 2:
        return None
    parts = [f"{who} ranks {first} first" for who, first in firsts if first is not None]
    tail = f"; consensus: {consensus_first}" if consensus_first else ""
    return ", ".join(parts) + tail + "."
