"""Reads of team evaluation: every evaluator's ranking, the consensus, the disagreement.

The rankings reuse the finished scoring run's per-criterion scores (`recombine`); a page that
already holds the comparison passes its columns, so the team section costs two queries
whatever the number of evaluators and bids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Prefetch

from bids.models import CapacityRequest
from evaluation.comparison import CRITERION_LABELS
from evaluation.models import AwardView, EvaluatorView, JudgedCriterion, Judgement
from evaluation.team.recombine import (
    VIEW_WEIGHTS,
    Placed,
    ScoredBid,
    consensus_judgements,
    consensus_weights,
    disagreement,
    recombine,
)

if TYPE_CHECKING:
    from evaluation.matrix import Column
    from evaluation.selectors import AwardRow

REQUEST_CHOICE, CONSENSUS_CHOICE = "request", "consensus"
JUDGED_LABELS = {str(value): str(label) for value, label in JudgedCriterion.choices}
WEIGHT_LABELS = {**CRITERION_LABELS, **JUDGED_LABELS}


@dataclass(frozen=True)
class Remark:
    bid: str
    criterion: str
    score: int
    comment: str


@dataclass(frozen=True)
class ViewRanking:
    kind: str  # an `AwardView` value
    label: str  # the view in words: the evaluator's name, "Consensus of 2 evaluators", ...
    choice: str  # what an award form sends: "request", "consensus" or "evaluator:<user id>"
    weights: dict[str, float]
    placed: list[Placed]
    evaluator_id: int | None = None
    remarks: list[Remark] = field(default_factory=list)

    @property
    def weight_lines(self) -> list[tuple[str, float, float]]:
        """(criterion in words, weight, share of the total) for each weight above zero."""
        total = sum(self.weights.get(n, 0) for n in VIEW_WEIGHTS) or 1.0
        return [
            (WEIGHT_LABELS[n], self.weights[n], self.weights[n] / total)
            for n in VIEW_WEIGHTS
            if self.weights.get(n, 0) > 0
        ]

    @property
    def first(self) -> Placed | None:
        return self.placed[0] if self.placed else None

    def rank_of(self, key: str) -> int | None:
        return next((p.rank for p in self.placed if p.key == key), None)


@dataclass(frozen=True)
class TeamEvaluation:
    request_view: ViewRanking
    evaluators: list[ViewRanking]
    consensus: ViewRanking | None
    disagreement: str | None
    mine: EvaluatorView | None

    @property
    def views(self) -> list[ViewRanking]:
        """Every view an award may follow, the request's weights first."""
        rest = [self.consensus] if self.consensus else []
        return [self.request_view, *rest, *self.evaluators]

    def view(self, choice: str) -> ViewRanking | None:
        return next((v for v in self.views if v.choice == choice), None)


def scored_from_columns(columns: Sequence[Column]) -> list[ScoredBid]:
    return [
        ScoredBid(
            key=str(c.bid_id),
            name=c.name,
            qualified=c.qualified,
            scores=dict(c.criteria),
            effective_price=_number(c.effective_price),
        )
        for c in columns
    ]


def scored_from_award_rows(rows: Sequence[AwardRow]) -> list[ScoredBid]:
    return [
        ScoredBid(
            key=str(r.bid.pk),
            name=r.bid.provider.name,
            qualified=r.score.qualified,
            scores={crit["name"]: float(crit["score"]) for crit in r.score.criteria},
            effective_price=None,  # deferred on award rows: ties break by name
        )
        for r in rows
        if r.score is not None
    ]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def evaluator_name(user: Any) -> str:
    return user.get_full_name() or user.get_username()


def evaluator_views(*, capacity_request: CapacityRequest) -> list[EvaluatorView]:
    """The views of current members of the buyer organisation (a member who left no longer
    counts), with their evaluators and judgements (2 queries)."""
    return list(
        EvaluatorView.objects.filter(
            request=capacity_request,
            evaluator__memberships__organization_id=capacity_request.buyer_id,
        )
        .select_related("evaluator")
        .prefetch_related(
            Prefetch("judgements", queryset=Judgement.objects.order_by("bid_id", "criterion"))
        )
        .order_by("pk")
    )


def _judged(view: EvaluatorView) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for j in view.judgements.all():
        out.setdefault(str(j.bid_id), {})[j.criterion] = float(j.score)
    return out


def team_evaluation(
    *, capacity_request: CapacityRequest, bids: Sequence[ScoredBid], viewer: Any = None
) -> TeamEvaluation:
    """Each evaluator's ranking, the consensus (mean weights, mean ratings), the request's own
    ranking, and the sentence saying where the evaluators disagree on the winner."""
    names = {b.key: b.name for b in bids}
    views = evaluator_views(capacity_request=capacity_request)
    rankings = []
    for view in views:
        judged = _judged(view)
        remarks = [
            Remark(names[str(j.bid_id)], JUDGED_LABELS[j.criterion], j.score, j.comment)
            for j in view.judgements.all()
            if str(j.bid_id) in names
        ]
        rankings.append(
            ViewRanking(
                kind=AwardView.EVALUATOR,
                label=evaluator_name(view.evaluator),
                choice=f"evaluator:{view.evaluator_id}",
                weights=dict(view.weights),
                placed=recombine(bids, view.weights, judged),
                evaluator_id=view.evaluator_id,
                remarks=remarks,
            )
        )
    consensus = None
    if views:
        weights = consensus_weights([v.weights for v in views])
        consensus = ViewRanking(
            kind=AwardView.CONSENSUS,
            label=f"Consensus of {len(views)} evaluator{'s' if len(views) != 1 else ''}",
            choice=CONSENSUS_CHOICE,
            weights=weights,
            placed=recombine(bids, weights, consensus_judgements([_judged(v) for v in views])),
        )
    request_view = ViewRanking(
        kind=AwardView.REQUEST,
        label="The request's weights",
        choice=REQUEST_CHOICE,
        weights=dict(capacity_request.weights),
        placed=recombine(bids, capacity_request.weights),
    )
    sentence = disagreement(
        [(r.label, r.first.name if r.first else None) for r in rankings],
        consensus.first.name if consensus and consensus.first else None,
    )
    viewer_id = getattr(viewer, "pk", None)
    mine = next((v for v in views if v.evaluator_id == viewer_id), None)
    return TeamEvaluation(request_view, rankings, consensus, sentence, mine)
