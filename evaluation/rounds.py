"""Round 1 and the best-and-final round side by side, for the comparison page and the API.

Each round is scored afresh from its own revisions with the scoring package (no sensitivity
draws: only the price, effective price, score and rank are shown): round 1 from every
submitted bid's last round-1 revision, the final round from each shortlisted bid's latest
revision (its round-1 revision where it did not revise). A constant number of queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from bids.models import Bid, BidRevision, CapacityRequest
from bids.models.requests import FIRST_ROUND
from engine.scoring import score_bids
from evaluation.anonymise import anonymous_labels
from evaluation.scoring_io import bid_label, scoring_inputs, weights_of
from evaluation.services import SCORED_BID_STATUSES


@dataclass(frozen=True)
class RoundFigures:
    revision: int
    price_per_gpu_hour: Decimal | None
    effective_price: float | None  # USD per useful GPU-hour
    total: float
    rank: int | None  # None: disqualified in that round

    @property
    def qualified(self) -> bool:
        return self.rank is not None


@dataclass(frozen=True)
class RoundRow:
    bid_id: int
    name: str
    shortlisted: bool
    first: RoundFigures | None
    final: RoundFigures | None  # None: not shortlisted
    revised: bool  # submitted a final-round revision

    @property
    def price_change(self) -> Decimal | None:
        if self.first is None or self.final is None:
            return None
        if self.first.price_per_gpu_hour is None or self.final.price_per_gpu_hour is None:
            return None
        return self.final.price_per_gpu_hour - self.first.price_per_gpu_hour


@dataclass(frozen=True)
class RoundComparison:
    request: CapacityRequest
    rows: list[RoundRow]


def _figures(
    capacity_request: CapacityRequest, revisions: Sequence[BidRevision]
) -> dict[int, RoundFigures]:
    """Score one round's revisions together, keyed by bid id."""
    if not revisions:
        return {}
    profile, offers, _ = scoring_inputs(capacity_request=capacity_request, revisions=revisions)
    result = score_bids(profile, offers, weights_of(capacity_request), draws=0)
    by_label = {bid_label(r): r for r in revisions}
    out = {}
    for scored in result.bids:
        revision = by_label[scored.label]
        out[revision.bid_id] = RoundFigures(
            revision=revision.number,
            price_per_gpu_hour=revision.price_per_gpu_hour,
            effective_price=scored.cost.effective_price_per_useful_gpu_hour,
            total=scored.total,
            rank=scored.rank,
        )
    return out


def round_comparison(
    *, capacity_request: CapacityRequest, anonymise: bool = False
) -> RoundComparison | None:
    """Both rounds per bid, once a final round was held and its bids are open to the buyer;
    None before (no final round, or still sealed)."""
    if not capacity_request.in_final_round or capacity_request.bids_hidden_from_buyer:
        return None
    bids = {
        bid.pk: bid
        for bid in Bid.objects.filter(request=capacity_request, status__in=SCORED_BID_STATUSES)
        .exclude(latest_revision_number=0)
        .select_related("provider")
    }
    first: dict[int, BidRevision] = {}
    final: dict[int, BidRevision] = {}
    revisions = (
        BidRevision.objects.filter(bid_id__in=list(bids))
        .select_related("bid__request", "bid__provider")
        .order_by("bid_id", "number")
    )
    for revision in revisions:  # ascending: the last one seen wins
        if revision.round == FIRST_ROUND:
            first[revision.bid_id] = revision
        if bids[revision.bid_id].shortlisted:
            final[revision.bid_id] = revision
    first_figures = _figures(capacity_request, list(first.values()))
    final_figures = _figures(capacity_request, list(final.values()))
    labels = anonymous_labels(capacity_request=capacity_request) if anonymise else {}

    def order(bid: Bid) -> tuple[int, int, str]:
        figures = final_figures.get(bid.pk) or first_figures.get(bid.pk)
        rank = figures.rank if figures and figures.rank else 10**6
        return (not bid.shortlisted, rank, bid.provider.name)

    rows = [
        RoundRow(
            bid_id=bid.pk,
            name=labels.get(bid.pk, bid.provider.name) if anonymise else bid.provider.name,
            shortlisted=bid.shortlisted,
            first=first_figures.get(bid.pk),
            final=final_figures.get(bid.pk),
            revised=bid.pk in final and final[bid.pk].round > FIRST_ROUND,
        )
        for bid in sorted(bids.values(), key=order)
    ]
    return RoundComparison(request=capacity_request, rows=rows)
