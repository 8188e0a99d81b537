"""The award as the browser and the API make it: the scores decide whether the buyer must
justify it, and after it every bidder hears the outcome with a debrief of its own bid.

A debrief holds the bid's own rank among the qualified bids, its weighted total, its score per
criterion and, when scoring disqualified it, the reasons in words. It never names another bid,
its provider or its price, and it leaves out the criterion rationales: the effective-cost one
quotes the best bid's price.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from acceptance.models import Reservation
from acceptance.services.award import request_award
from bids.choices import BidStatus
from bids.models import Bid, CapacityRequest
from engine.formatting import fixed
from evaluation.comparison import CRITERION_LABELS
from evaluation.models import AwardView, BidDebrief, BidScore
from evaluation.rounds import round_comparison
from evaluation.selectors import AwardRow, award_against_scores, award_rows
from evaluation.team.selectors import (
    REQUEST_CHOICE,
    ViewRanking,
    scored_from_award_rows,
    team_evaluation,
)
from evaluation.team.services import award_basis_record
from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members


@dataclass(frozen=True)
class CriterionLine:
    label: str
    score: float
    weight: float


@dataclass(frozen=True)
class Debrief:
    scored: bool
    rank: int | None
    ranked: int  # how many bids the scoring ranked (qualified bids)
    total: float | None
    criteria: tuple[CriterionLine, ...]
    disqualifications: tuple[str, ...]

    def text(self) -> str:
        if not self.scored:
            return (
                "The bids had no current scores when the award was made, so there is no "
                "ranking to report."
            )
        lines = []
        if self.rank is not None:
            lines.append(
                f"Your bid ranked {self.rank} of {self.ranked} qualified "
                f"bid{'s' if self.ranked != 1 else ''}, with a weighted total of "
                f"{fixed(self.total, places=1)} out of 100."
            )
        else:
            lines.append(
                "Scoring disqualified your bid: " + "; ".join(self.disqualifications) + "."
            )
        lines.append("Your scores per criterion (0–100, with the buyer's weight):")
        lines += [
            f"- {c.label}: {fixed(c.score, places=1)} (weight {c.weight:g})" for c in self.criteria
        ]
        return "\n".join(lines)


def debrief_of(score: BidScore | None, *, ranked: int) -> Debrief:
    if score is None:
        return Debrief(False, None, ranked, None, (), ())
    weights = score.weights or {}
    criteria = tuple(
        CriterionLine(
            CRITERION_LABELS.get(c["name"], c["name"]),
            float(c["score"]),
            float(weights.get(c["name"], 0)),
        )
        for c in score.criteria
    )
    reasons = tuple(d["message"] for d in score.disqualifications)
    rank = score.rank if score.qualified else None
    return Debrief(True, rank, ranked, score.total, criteria, reasons)


def left_out_debriefs(*, capacity_request: CapacityRequest, rows: list[AwardRow]) -> dict[Bid, str]:
    """The submitted bids the award did not decide between (left out of a best-and-final round),
    each with its debrief: why it was not in the final choice, and how it ranked in round 1."""
    if not capacity_request.in_final_round:
        return {}
    decided = {row.bid.pk for row in rows}
    left_out = [
        bid
        for bid in capacity_request.bids.filter(status=BidStatus.SUBMITTED)
        .exclude(latest_revision_number=0)
        .select_related("provider")
        if bid.pk not in decided
    ]
    if not left_out:
        return {}
    rounds = round_comparison(capacity_request=capacity_request)
    first = {row.bid_id: row.first for row in rounds.rows} if rounds else {}
    ranked = sum(1 for f in first.values() if f is not None and f.qualified)
    out = {}
    for bid in left_out:
        lines = [
            "Your bid was not shortlisted for the best-and-final round, so the award was made "
            "between the shortlisted bids only."
        ]
        figures = first.get(bid.pk)
        if figures is not None and figures.rank is not None:
            lines.append(
                f"In round 1 your bid ranked {figures.rank} of {ranked} qualified "
                f"bid{'s' if ranked != 1 else ''}, with a weighted total of "
                f"{fixed(figures.total, places=1)} out of 100."
            )
        elif figures is not None:
            lines.append("In round 1 scoring disqualified your bid.")
        out[bid] = "\n".join(lines)
    return out


def _debrief_kept(*, bid: Bid, won: bool, body: str) -> None:
    BidDebrief.objects.update_or_create(bid=bid, defaults={"won": won, "body": body})


def _loss_notice(
    *, request: CapacityRequest, bid: Bid, revision: int, debrief: str
) -> list[Notice]:
    _debrief_kept(bid=bid, won=False, body=debrief)
    return notify_members(
        event=Event.LOSS,
        organization=bid.provider,
        subject=f"“{request.title}” was awarded to another bid",
        body=(
            f"{request.buyer.name} awarded “{request.title}” to another bid; "
            f"{bid.provider.name}'s bid (revision {revision}) did not win. "
            f"Here is how your bid scored.\n\n{debrief}"
        ),
        path=reverse("bids:bid-detail", args=[bid.pk]),
        key=f"loss:{request.pk}:{bid.pk}",
    )


def award_notify(
    *, reservation: Reservation, rows: list[AwardRow], left_out: dict[Bid, str] | None = None
) -> list[Notice]:
    """The winner's members and each losing bidder's members, each told of its own bid only;
    the bids left out of a final round hear it too. Each debrief is also kept for the bid page."""
    request = reservation.request
    ranked = sum(1 for r in rows if r.score is not None and r.score.qualified)
    sent: list[Notice] = []
    for row in rows:
        provider = row.bid.provider
        debrief = debrief_of(row.score, ranked=ranked).text()
        if row.bid.pk != reservation.bid_id:
            sent += _loss_notice(
                request=request, bid=row.bid, revision=row.revision.number, debrief=debrief
            )
            continue
        _debrief_kept(bid=row.bid, won=True, body=debrief)
        sent += notify_members(
            event=Event.AWARD,
            organization=provider,
            subject=f"You won “{request.title}”",
            body=(
                f"{request.buyer.name} awarded “{request.title}” to {provider.name} "
                f"(revision {row.revision.number}). The reservation waits for your burn-in "
                f"evidence and the buyer's acceptance.\n\n{debrief}"
            ),
            path=reverse("burnin:reservation-detail", args=[reservation.pk]),
            key=f"award:{request.pk}:{row.bid.pk}",
        )
    for bid, debrief in (left_out or {}).items():
        sent += _loss_notice(
            request=request, bid=bid, revision=bid.latest_revision_number, debrief=debrief
        )
    return sent


def split_award_notify(
    *,
    capacity_request: CapacityRequest,
    reservations: list[Reservation],
    rows: list[AwardRow],
    left_out: dict[Bid, str] | None = None,
) -> list[Notice]:
    """A split award's notices: each winning provider hears of its own lots only (one notice,
    linking its bid page, which lists its reservations); every other bidder gets its debrief."""
    won: dict[int, list[Reservation]] = {}
    for reservation in reservations:
        won.setdefault(reservation.bid_id, []).append(reservation)
    ranked = sum(1 for r in rows if r.score is not None and r.score.qualified)
    sent: list[Notice] = []
    for row in rows:
        debrief = debrief_of(row.score, ranked=ranked).text()
        mine = won.get(row.bid.pk)
        if not mine:
            sent += _loss_notice(
                request=capacity_request, bid=row.bid, revision=row.revision.number, debrief=debrief
            )
            continue
        _debrief_kept(bid=row.bid, won=True, body=debrief)
        provider = row.bid.provider
        lots = "; ".join(
            f"lot {r.lot.number} ({r.lot.name}), {r.nodes} node{'s' if r.nodes != 1 else ''}"
            if r.lot is not None
            else "the whole request"
            for r in mine
        )
        sent += notify_members(
            event=Event.AWARD,
            organization=provider,
            subject=f"You won part of “{capacity_request.title}”",
            body=(
                f"{capacity_request.buyer.name} split the award of “{capacity_request.title}”; "
                f"{provider.name} (revision {row.revision.number}) won: {lots}. Each lot is a "
                "reservation of its own that waits for your burn-in evidence and the buyer's "
                f"acceptance.\n\n{debrief}"
            ),
            path=reverse("bids:bid-detail", args=[row.bid.pk]),
            key=f"award:{capacity_request.pk}:{row.bid.pk}",
        )
    for bid, debrief in (left_out or {}).items():
        sent += _loss_notice(
            request=capacity_request, bid=bid, revision=bid.latest_revision_number, debrief=debrief
        )
    return sent


def award_view_chosen(
    *, capacity_request: CapacityRequest, rows: list[AwardRow], choice: str
) -> ViewRanking:
    """The ranking the buyer says the award follows: the request's weights, the team's
    consensus or one evaluator's view (`evaluation.team`)."""
    team = team_evaluation(capacity_request=capacity_request, bids=scored_from_award_rows(rows))
    chosen = team.view(choice or REQUEST_CHOICE)
    if chosen is None:
        offered = ", ".join(f"{v.choice} ({v.label})" for v in team.views)
        raise ValidationError({"view": [f"No view {choice!r} on this request: choose {offered}."]})
    if chosen.kind != AwardView.REQUEST and not chosen.placed:
        raise ValidationError(
            {"view": [f"{chosen.label} ranks no bid: the bids have no current scores yet."]}
        )
    return chosen


def against_ranking(*, capacity_request: CapacityRequest, bid: Bid, ranking: ViewRanking) -> str:
    """Why awarding `bid` goes against the ranking followed, in words, and so needs a written
    justification ('' when it does not)."""
    if ranking.kind == AwardView.REQUEST:
        return award_against_scores(capacity_request=capacity_request, bid=bid)
    rank = ranking.rank_of(str(bid.pk))
    if rank == 1:
        return ""
    if rank is None:
        return f"{ranking.label} does not rank this bid"
    return f"{ranking.label} ranks this bid #{rank}, not first"


@transaction.atomic
def award_with_debrief(
    *,
    capacity_request: CapacityRequest,
    bid: Bid,
    user: User,
    justification: str = "",
    view: str = REQUEST_CHOICE,
) -> Reservation:
    """Award (a justification is required against the ranking followed) and notify every bidder.

    The rows are read before the award: they are the submitted bids it decides between, scored
    as the buyer saw them when awarding. `view` names the ranking the award follows: the
    request's weights (the current scores), the consensus, or `evaluator:<user id>`."""
    rows = award_rows(capacity_request=capacity_request)
    left_out = left_out_debriefs(capacity_request=capacity_request, rows=rows)
    chosen = award_view_chosen(capacity_request=capacity_request, rows=rows, choice=view)
    against = against_ranking(capacity_request=capacity_request, bid=bid, ranking=chosen)
    reservation = request_award(
        capacity_request=capacity_request,
        bid=bid,
        user=user,
        justification=justification,
        against_scores=against,
    )
    award_basis_record(capacity_request=capacity_request, bid=bid, user=user, ranking=chosen)
    award_notify(reservation=reservation, rows=rows, left_out=left_out)
    return reservation
