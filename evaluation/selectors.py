"""Reads that combine the bids with their current scores: the award panel and the award rule;
and the comparison's bids that state a fact twice, with what their providers kept as stated."""

from __future__ import annotations

from dataclasses import dataclass

from acceptance.selectors import burnin
from bids import selectors as bid_selectors
from bids.models import Bid, BidRevision, CapacityRequest
from evaluation.anonymise import HIDDEN
from evaluation.comparison import CURRENT, Comparison, comparison_state
from evaluation.models import BidScore
from questionnaire.conflicts import same_conflict
from questionnaire.selectors import kept_conflicts_by_bid


@dataclass(frozen=True)
class AwardRow:
    bid: Bid
    revision: BidRevision
    score: BidScore | None  # from the current scoring run; None while there is none

    @property
    def scored(self) -> bool:
        return self.score is not None

    @property
    def rank(self) -> int | None:
        return self.score.rank if self.score else None

    @property
    def total(self) -> float | None:
        return self.score.total if self.score else None

    @property
    def disqualifications(self) -> list[str]:
        """The reasons in words, as the comparison page words them."""
        return [d["message"] for d in self.score.disqualifications] if self.score else []

    @property
    def against_scores(self) -> str:
        """Why awarding this bid goes against the current scores, in words ('' when it does
        not); without current scores there is no ranking to go against."""
        if self.score is None:
            return ""
        if not self.score.qualified:
            return "The current scoring disqualifies this bid"
        if self.score.rank != 1:
            return f"The current scoring ranks this bid #{self.score.rank}, not first"
        return ""

    @property
    def needs_justification(self) -> bool:
        """Awarding against the current scores needs a written reason."""
        return bool(self.against_scores)


def current_scores(*, capacity_request: CapacityRequest) -> dict[int, BidScore]:
    """The current run's scores by revision id; empty when the run is missing, pending, failed
    or for other inputs (a constant number of queries)."""
    state, run = comparison_state(capacity_request=capacity_request)
    if state != CURRENT or run is None:
        return {}
    return {s.revision_id: s for s in BidScore.objects.filter(run=run).defer("cost", "curve")}


def award_rows(*, capacity_request: CapacityRequest) -> list[AwardRow]:
    """What the buyer awards between: each bid's submitted revision (never the working copy,
    which may hold unsubmitted edits) with its current score, best ranked first."""
    bids = list(burnin.awardable_bids(capacity_request=capacity_request))
    revisions = bid_selectors.latest_revisions(bids)
    scores = current_scores(capacity_request=capacity_request)
    rows = [
        AwardRow(bid, revisions[bid.pk], scores.get(revisions[bid.pk].pk))
        for bid in bids
        if bid.pk in revisions
    ]
    # Ranked bids in rank order, then the disqualified, then the unscored (by provider name).
    return sorted(rows, key=lambda r: (r.score is None, r.score.position if r.score else 0))


def award_against_scores(*, capacity_request: CapacityRequest, bid: Bid) -> str:
    """Why awarding `bid` goes against the current scores ('' when it does not)."""
    revision = bid_selectors.latest_revisions([bid]).get(bid.pk)
    if revision is None:
        return ""  # not a submitted bid: the award service refuses it with its own reason
    score = current_scores(capacity_request=capacity_request).get(revision.pk)
    return AwardRow(bid, revision, score).against_scores


@dataclass(frozen=True)
class ConflictedBid:
    """A compared bid that states a fact twice with two values."""

    name: str
    messages: list[tuple[str, bool]]  # each conflict as the comparison prints it, and kept?
    reason: str  # why its provider kept them as stated ('' when it kept none shown here)

    @property
    def all_kept(self) -> bool:
        return all(kept for _, kept in self.messages)


def conflicted_bids(*, view: Comparison) -> list[ConflictedBid]:
    """The comparison's conflicted bids, each conflict marked where the provider kept both
    values with a reason; the reason is the provider's own words, hidden while anonymised.
    One query for any number of bids, none when no bid states a fact twice."""
    columns = view.conflicted_columns
    if not columns:
        return []
    kept = kept_conflicts_by_bid(bid_ids=[c.bid_id for c in columns])
    out = []
    for col in columns:
        record = kept.get(col.bid_id)
        stated = record.messages if record is not None else []
        messages = [(m, any(same_conflict(k, m) for k in stated)) for m in col.conflict_messages]
        reason = ""
        if record is not None and any(k for _, k in messages):
            reason = HIDDEN if view.anonymised else record.reason
        out.append(ConflictedBid(col.name, messages, reason))
    return out
