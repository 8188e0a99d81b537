"""Awarding a solved scenario: its allocation becomes one reservation per (lot, provider).

The award's rules are the single award's (`acceptance.services.award`, `bids.services.award`):
the buyer's team may award a request whose bidding is over, once. A justification is required
when the allocation gives a lot to a bid the current scoring disqualifies for anything but its
size (a split award weighs the scenario's rules, not one bid's rank, so a bid not ranked first
needs none, and a bid for some lots is short of the whole request by design); one given is kept
either way. Every bidder hears the outcome with its own debrief, as for a single award.

A scenario is awarded only as it was solved: solved (not infeasible or failed) and against the
bid revisions the buyer would read now. A second submit of the same award finds it done."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.models import User
from django.db import transaction

from acceptance.models import Reservation
from acceptance.services.award import AwardPiece, request_award_split
from audit.models import Party
from audit.services import audit_record, buyer_only
from bids.lots import lot_list, lot_terms
from bids.models import BidRevision, Lot
from core.errors import Conflict
from engine.lots import awarded_lot_prices
from evaluation.debrief import left_out_debriefs, split_award_notify
from evaluation.scenario_inputs import WHOLE_REQUEST, current_revision_ids, lot_key
from evaluation.scenario_models import AwardScenario, ScenarioAward, ScenarioStatus
from evaluation.selectors import AwardRow, award_rows


def scenario_award_refusal(*, scenario: AwardScenario) -> str | None:
    """Why the scenario cannot be awarded as it stands (None when it can): its state, not who
    asks (the award's lifecycle move says who may)."""
    request = scenario.request
    if request.reservations.exists():
        return "This request is already awarded: a request is awarded once."
    if scenario.status == ScenarioStatus.INFEASIBLE:
        return (
            f"“{scenario.name}” is infeasible: it has no allocation to award. Drop one of the "
            "conflicting rules and solve it again."
        )
    if scenario.status != ScenarioStatus.SOLVED:
        return (
            f"“{scenario.name}” is {scenario.get_status_display().lower()}: award it once solved."
        )
    read = sorted(scenario.result.get("bid_revisions") or [])
    if read != current_revision_ids(capacity_request=request):
        return (
            f"The bids changed since “{scenario.name}” was solved: solve it again, then award "
            "the allocation it finds."
        )
    return None


def _pieces(scenario: AwardScenario) -> list[AwardPiece]:
    """The stored allocation's lines as pieces: each line's provider is the bid whose revision
    the solve read, its lot the lot of that key, its price the revision's offer on that lot less
    the discount bundles the whole allocation earns that bid (as the award's cost counts them)."""
    revisions = BidRevision.objects.filter(pk__in=scenario.result["bid_revisions"]).select_related(
        "bid__provider"
    )
    by_provider = {rev.bid.provider.name: rev for rev in revisions}
    lots: dict[str, Lot] = {
        lot_key(lot.number): lot for lot in lot_list(capacity_request=scenario.request)
    }
    specs = [lot.spec() for lot in lots.values()]
    lines = scenario.result.get("lines") or []
    won: dict[str, set[int]] = {}
    for line in lines:
        if (lot := lots.get(line["lot"])) is not None:
            won.setdefault(line["provider"], set()).add(lot.number)
    pieces = []
    for line in lines:
        revision = by_provider.get(line["provider"])
        if revision is None:  # the provider was renamed since the solve named it
            raise Conflict(f"Solve “{scenario.name}” again: its allocation names a bidder by an "
                           "old name.")  # fmt: skip
        lot = lots.get(line["lot"]) if line["lot"] != WHOLE_REQUEST else None
        price = revision.price_per_gpu_hour or Decimal(0)
        if lot is not None:
            terms = lot_terms(revision, specs)
            prices = awarded_lot_prices(
                offers={o.lot: o.price_per_gpu_hour for o in terms.offers},
                bundles=terms.bundles,
                awarded=won.get(line["provider"], set()),
            )
            price = prices.get(lot.number, price)
        pieces.append(
            AwardPiece(
                bid=revision.bid, lot=lot, nodes=int(line["nodes"]), price_per_gpu_hour=price
            )
        )
    return pieces


# A scenario sizes each provider's share itself (lots, blocks, caps), so a bid that offers fewer
# GPUs than the whole request is not, on that ground alone, an award against the scores.
_SIZED_BY_THE_SCENARIO = frozenset({"gpu_count"})


def _against_scores(rows: list[AwardRow], pieces: list[AwardPiece]) -> str:
    """Why the allocation goes against the scores, in words: a winner the scoring disqualifies
    on a ground the scenario does not size away ('' when none)."""
    won = {p.bid.pk for p in pieces}
    names = [
        row.bid.provider.name
        for row in rows
        if row.bid.pk in won
        and row.score is not None
        and any(f["code"] not in _SIZED_BY_THE_SCENARIO for f in row.score.disqualifications)
    ]
    if not names:
        return ""
    bids = "bid" if len(names) == 1 else "bids"
    return f"The current scoring disqualifies the {bids} of {', '.join(names)}"


@transaction.atomic
def scenario_award(
    *, scenario: AwardScenario, user: User, justification: str = ""
) -> ScenarioAward:
    """Award the scenario's allocation, debrief every bidder and keep the award with the
    request. Refused with `Conflict` (409) when stale, infeasible, unsolved or already awarded;
    a second submit of an award already made returns it."""
    scenario = (
        AwardScenario.objects.select_for_update()
        .select_related("request__buyer")
        .get(pk=scenario.pk)
    )
    done = ScenarioAward.objects.filter(scenario=scenario).first()
    if done is not None:
        return done
    if refusal := scenario_award_refusal(scenario=scenario):
        raise Conflict(refusal)
    request = scenario.request
    rows = award_rows(capacity_request=request)
    left_out = left_out_debriefs(capacity_request=request, rows=rows)
    pieces = _pieces(scenario)
    reservations = request_award_split(
        capacity_request=request,
        pieces=pieces,
        user=user,
        justification=justification,
        against_scores=_against_scores(rows, pieces),
    )
    award = ScenarioAward.objects.create(
        request=request,
        scenario=scenario,
        scenario_name=scenario.name,
        result=scenario.result,
        justification=justification.strip(),
        awarded_by=user,
    )
    award.reservations.set(reservations)
    _audit(award, user=user, reservations=reservations)
    split_award_notify(
        capacity_request=request, reservations=reservations, rows=rows, left_out=left_out
    )
    return award


def _audit(award: ScenarioAward, *, user: User, reservations: list[Reservation]) -> None:
    # The buyer's alone: the allocation names every provider and its price.
    audit_record(
        action="scenario.award",
        obj_key=f"scenario:{award.scenario_id}",
        request_id=award.request_id,
        user=user,
        org_id=award.request.buyer_id,
        party=Party.BUYER,
        audience=buyer_only(buyer_org_id=award.request.buyer_id),
        after={
            "scenario": award.scenario_id,
            "cost": (award.result.get("figures") or {}).get("cost"),
            "reservations": [
                {
                    "reservation": r.pk,
                    "lot": r.lot.number if r.lot else None,
                    "bid": r.bid_id,
                    "nodes": r.nodes,
                }
                for r in reservations
            ],
        },
        reason=award.justification,
    )
