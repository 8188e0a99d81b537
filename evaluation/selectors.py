"""Reads that combine the bids with their current scores."""

from __future__ import annotations

from dataclasses import dataclass

from acceptance.selectors import burnin
from bids import selectors as bid_selectors
from bids.models import Bid, BidRevision, CapacityRequest
from evaluation.models import BidScore, ScoringStatus


@dataclass(frozen=True)
class AwardRow:
    bid: Bid
    revision: BidRevision
    disqualifications: list[str]  # from the current scores; empty when qualified or unscored


def award_rows(*, request: CapacityRequest) -> list[AwardRow]:
    """What the buyer awards between: each bid's submitted revision (never the working copy,
    which may hold unsubmitted edits) and why the current scoring disqualifies it, if it does."""
    bids = list(burnin.awardable_bids(request=request))
    revisions = bid_selectors.latest_revisions(bids)
    reasons = dict(
        BidScore.objects.filter(
            run__request=request,
            run__stale=False,
            run__status=ScoringStatus.DONE,
            revision__in=list(revisions.values()),
        ).values_list("revision_id", "disqualifications")
    )
    return [
        AwardRow(bid, revisions[bid.pk], list(reasons.get(revisions[bid.pk].pk) or []))
        for bid in bids
        if bid.pk in revisions
    ]
