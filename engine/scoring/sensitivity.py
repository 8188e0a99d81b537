"""Does the winner survive reasonable disagreement about the weights?

Two tests on the matrix of criterion scores (qualified bids only, in rank order):
- one at a time: each non-zero weight moved by -20 % and +20 %, the others kept;
- random draws: weight vectors drawn from a Dirichlet distribution centred on the chosen
  weights (alpha_i = concentration x w_i / sum w), counting how often each bid wins.
Only the criterion scores are re-weighted, so the model and criteria run once per bid.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from operator import ge

from .inputs import CRITERIA

#: Share of random draws the winner must take (with no one-at-a-time upset) to be "robust".
ROBUST_WIN_SHARE = 0.80
DEFAULT_DRAWS = 2_000
#: With 50, a 40 % weight varies by about +/-7 points (1 sd) and a 10 % weight by +/-4.
DEFAULT_CONCENTRATION = 50.0
WEIGHT_MOVES = (0.8, 1.2)

VERDICT_ROBUST = "robust"
VERDICT_CLOSE = "close call"
VERDICT_NONE = "no qualified bids"


@dataclass(frozen=True)
class WeightMove:
    """One weight scaled by `factor` with the others kept; who wins then."""

    criterion: str
    factor: float
    winner: str | None


@dataclass(frozen=True)
class Sensitivity:
    winner: str | None
    verdict: str
    moves: tuple[WeightMove, ...]
    winner_changing_moves: tuple[WeightMove, ...]
    survives_all_moves: bool
    draws: int
    seed: int
    concentration: float
    win_shares: dict[str, float]
    winner_share: float
    robust_threshold: float = ROBUST_WIN_SHARE


Row = Sequence[float]


def _totals(rows: Sequence[Row], w: Sequence[float]) -> list[float]:
    """Weighted sums; unrolled for the five criteria because this is the hot loop."""
    w0, w1, w2, w3, w4 = w
    return [a * w0 + b * w1 + c * w2 + d * w3 + e * w4 for a, b, c, d, e in rows]


def _winner(rows: Sequence[Row], weights: Sequence[float]) -> int:
    """Index of the highest weighted sum; ties go to the earlier (better-ranked) row."""
    totals = _totals(rows, weights)
    return totals.index(max(totals))


def _pareto_front(rows: Sequence[Row], active: Sequence[int]) -> list[int]:
    """Indices (in rank order) of rows that no other row matches or beats on every active criterion.

    A dominated row cannot win under any positive weights, so the draws skip it. Rows are
    visited by falling sum of scores: a row can only be dominated by one visited before it,
    and of two identical rows the better-ranked one is visited first and kept.
    """
    keys = [tuple(row[a] for a in active) for row in rows]
    order = sorted(range(len(rows)), key=lambda i: (-sum(keys[i]), i))
    front: list[tuple[float, ...]] = []
    kept: list[int] = []
    for i in order:
        key = keys[i]
        if any(all(map(ge, f, key)) for f in front):
            continue
        front.append(key)
        kept.append(i)
    return sorted(kept)


def analyse(
    *,
    labels: Sequence[str],
    rows: Sequence[Row],
    weights: Sequence[float],
    seed: int = 0,
    draws: int = DEFAULT_DRAWS,
    concentration: float = DEFAULT_CONCENTRATION,
) -> Sensitivity:
    """Sensitivity of the winner; `labels`/`rows` are the qualified bids in rank order."""
    if draws < 0:
        raise ValueError("draws must not be negative")
    if concentration <= 0:
        raise ValueError("concentration must be positive")
    if len(weights) != len(CRITERIA) or any(len(r) != len(CRITERIA) for r in rows):
        raise ValueError(f"rows and weights need one value per criterion ({len(CRITERIA)})")
    if not rows:
        return Sensitivity(None, VERDICT_NONE, (), (), True, draws, seed, concentration, {}, 0.0)

    base = 0  # rows come in rank order: the ranked winner is the one to test
    moves: list[WeightMove] = []
    for c, name in enumerate(CRITERIA):
        if weights[c] == 0:
            continue  # +/-20 % of nothing is no move
        for factor in WEIGHT_MOVES:
            moved = list(weights)
            moved[c] *= factor
            moves.append(WeightMove(name, factor, labels[_winner(rows, moved)]))
    changing = tuple(m for m in moves if m.winner != labels[base])

    wins = [0] * len(rows)
    active = [c for c, w in enumerate(weights) if w > 0]
    front = _pareto_front(rows, active)
    front_rows = [rows[i] for i in front]
    total_w = sum(weights)
    alphas = [concentration * w / total_w for w in weights]
    rng = random.Random(seed)
    gamma = rng.gammavariate
    for _ in range(draws):
        # Dirichlet draw = independent gammas, normalised; argmax ignores the normalisation.
        drawn = [gamma(a, 1.0) if a > 0 else 0.0 for a in alphas]
        if not any(drawn):  # only if every gamma draw underflows
            drawn = list(weights)
        wins[front[_winner(front_rows, drawn)]] += 1
    shares = {label: (wins[i] / draws if draws else 0.0) for i, label in enumerate(labels)}
    winner_share = shares[labels[base]] if draws else 1.0

    robust = not changing and winner_share >= ROBUST_WIN_SHARE
    return Sensitivity(
        winner=labels[base],
        verdict=VERDICT_ROBUST if robust else VERDICT_CLOSE,
        moves=tuple(moves),
        winner_changing_moves=changing,
        survives_all_moves=not changing,
        draws=draws,
        seed=seed,
        concentration=concentration,
        win_shares=shares,
        winner_share=winner_share,
    )
