"""Score, disqualify and rank a set of bids, then test how robust the winner is."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .cost_model import CostBreakdown, compute_cost
from .criteria import CriterionScore, Disqualification, hard_requirement_failures, score_criteria
from .inputs import BidOffer, RequestProfile, Weights
from .sensitivity import DEFAULT_CONCENTRATION, DEFAULT_DRAWS, Sensitivity, analyse


@dataclass(frozen=True)
class BidScore:
    """One bid's outcome. `rank` is None for a disqualified bid; its scores still show."""

    label: str
    qualified: bool
    rank: int | None
    total: float
    criteria: tuple[CriterionScore, ...]
    disqualifications: tuple[Disqualification, ...]
    cost: CostBreakdown
    offer: BidOffer

    @property
    def scores(self) -> dict[str, float]:
        return {c.name: c.score for c in self.criteria}

    def criterion(self, name: str) -> CriterionScore:
        for c in self.criteria:
            if c.name == name:
                return c
        raise KeyError(name)


@dataclass(frozen=True)
class ScoringResult:
    """Qualified bids in rank order, then disqualified ones in the order given."""

    request: RequestProfile
    weights: Weights
    bids: tuple[BidScore, ...]
    winner: str | None
    sensitivity: Sensitivity

    def by_label(self, label: str) -> BidScore:
        for b in self.bids:
            if b.label == label:
                return b
        raise KeyError(label)

    @property
    def qualified(self) -> tuple[BidScore, ...]:
        return tuple(b for b in self.bids if b.qualified)


def weighted_total(scores: Sequence[float], weights: Weights) -> float:
    """Weighted mean of the criterion scores, 0-100."""
    w = weights.as_tuple()
    return sum(s * x for s, x in zip(scores, w, strict=True)) / sum(w)


def _require_unique_labels(bids: Sequence[BidOffer]) -> None:
    seen: set[str] = set()
    for bid in bids:
        if bid.label in seen:
            raise ValueError(
                f"duplicate bid label {bid.label!r}: labels identify bids in the result"
            )
        seen.add(bid.label)


@dataclass(frozen=True)
class _Assessment:
    """Each bid's cost, hard-requirement failures and criterion scores, in the order given."""

    costs: tuple[CostBreakdown, ...]
    failures: tuple[tuple[Disqualification, ...], ...]
    criteria: tuple[tuple[CriterionScore, ...], ...]
    totals: tuple[float, ...]

    def effective(self, i: int) -> float | None:
        return self.costs[i].effective_price_per_useful_gpu_hour

    def best_effective(self, indices: Sequence[int]) -> float | None:
        finite = [p for p in (self.effective(i) for i in indices) if p is not None]
        return min(finite) if finite else None


def _assess(*, request: RequestProfile, bids: Sequence[BidOffer], weights: Weights) -> _Assessment:
    costs = tuple(compute_cost(request=request, bid=b) for b in bids)
    failures = tuple(hard_requirement_failures(request=request, bid=b) for b in bids)
    unscored = _Assessment(costs=costs, failures=failures, criteria=(), totals=())
    qualified = [i for i, f in enumerate(failures) if not f]
    # Scores are relative to the best qualified bid; with none qualified, to the best bid.
    best = unscored.best_effective(qualified or range(len(bids)))
    criteria = tuple(
        score_criteria(request=request, bid=b, cost=c, best_effective=best)
        for b, c in zip(bids, costs, strict=True)
    )
    totals = tuple(round(weighted_total([c.score for c in cs], weights), 2) for cs in criteria)
    return _Assessment(costs=costs, failures=failures, criteria=criteria, totals=totals)


def _ranked(*, bids: Sequence[BidOffer], assessment: _Assessment) -> list[int]:
    """Qualified bids' indices, best first: total, then effective price, then label."""

    def rank_key(i: int) -> tuple[float, float, str, int]:
        eff = assessment.effective(i)
        return (-assessment.totals[i], eff if eff is not None else math.inf, bids[i].label, i)

    qualified = [i for i, f in enumerate(assessment.failures) if not f]
    return sorted(qualified, key=rank_key)


def score_bids(
    request: RequestProfile,
    bids: Sequence[BidOffer],
    weights: Weights | None = None,
    *,
    seed: int = 0,
    draws: int = DEFAULT_DRAWS,
    concentration: float = DEFAULT_CONCENTRATION,
) -> ScoringResult:
    """Run the cost model, hard requirements, criteria, ranking and sensitivity."""
    weights = weights or Weights()
    _require_unique_labels(bids)
    a = _assess(request=request, bids=bids, weights=weights)
    ranked = _ranked(bids=bids, assessment=a)
    ranks = {i: r for r, i in enumerate(ranked, start=1)}
    order = ranked + [i for i in range(len(bids)) if a.failures[i]]
    results = tuple(
        BidScore(
            label=bids[i].label,
            qualified=not a.failures[i],
            rank=ranks.get(i),
            total=a.totals[i],
            criteria=a.criteria[i],
            disqualifications=a.failures[i],
            cost=a.costs[i],
            offer=bids[i],
        )
        for i in order
    )
    sensitivity = analyse(
        labels=[bids[i].label for i in ranked],
        rows=[[c.score for c in a.criteria[i]] for i in ranked],
        weights=weights.as_tuple(),
        seed=seed,
        draws=draws,
        concentration=concentration,
    )
    return ScoringResult(
        request=request,
        weights=weights,
        bids=results,
        winner=bids[ranked[0]].label if ranked else None,
        sensitivity=sensitivity,
    )
