"""The optimiser's inputs for a request: its lots, and the lot offers and bundle conditions of
the latest submitted revision of each bid the buyer may see.

`useful_fraction` is the scoring's own figure for that offer on that lot (`lot_figures`: the
bid's reliability, SLA and fabric on the lot's size and term), divided by the paid GPU-hours,
so the optimiser weighs a provider's goodput exactly as the comparison page ranks it. Each bid
is one provider's cluster, so its offers share one fabric domain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from bids.choices import BidStatus
from bids.lots import LotTerms, lot_list, lot_terms
from bids.models import Bid, BidRevision, CapacityRequest, Lot
from bids.selectors import bid_rows_for_buyer
from engine import award
from engine.lots import LotOffer, lot_figures
from engine.scoring import BidOffer, RequestProfile
from evaluation.scenario_models import AwardScenario
from evaluation.scoring_io import NOT_ACKNOWLEDGED, bid_offer, request_profile, scoring_context

FRACTION = Decimal("0.0001")


@dataclass(frozen=True)
class AwardInputs:
    lots: list[award.LotSpec]
    offers: list[award.Offer]
    bundles: list[award.Bundle]
    providers: dict[int, str]  # org id → the name the engine and its rule keys use
    skipped: list[str] = field(default_factory=list)  # offers left out, and why
    revision_ids: list[int] = field(default_factory=list)  # the bid revisions read


def _solvable_rows(capacity_request: CapacityRequest) -> list[tuple[Bid, BidRevision]]:
    return [
        (bid, rev)
        for bid, rev in bid_rows_for_buyer(capacity_request=capacity_request)
        if bid.status in (BidStatus.SUBMITTED, BidStatus.AWARDED, BidStatus.LOST)
    ]


def current_revision_ids(*, capacity_request: CapacityRequest) -> list[int]:
    """What a solve would read now: a stored answer from other revisions is out of date."""
    return sorted(rev.pk for _, rev in _solvable_rows(capacity_request))


WHOLE_REQUEST = "Whole request"


def lot_key(number: int) -> str:
    return f"Lot {number}"


def _key(lot: Lot) -> str:
    return lot_key(lot.number) if lot.pk is not None else WHOLE_REQUEST


def _implicit_lot(capacity_request: CapacityRequest) -> Lot:
    """A request without lots is one indivisible lot, its own capacity and term (as bidding and
    scoring treat it): a scenario then chooses the one bid that best meets its rules."""
    return Lot(
        request=capacity_request,
        number=1,
        name=WHOLE_REQUEST,
        nodes=capacity_request.nodes,
        gpus_per_node=capacity_request.gpus_per_node,
        divisible=False,
    )


def _offers_of(revision: BidRevision, terms: LotTerms, implicit: bool) -> list[LotOffer]:
    if not implicit:
        return terms.offers
    if not revision.price_per_gpu_hour or not revision.nodes:
        return []
    return [LotOffer(lot=1, price_per_gpu_hour=revision.price_per_gpu_hour, nodes=revision.nodes)]


def _lot_spec(lot: Lot) -> award.LotSpec:
    return award.LotSpec(
        key=_key(lot),
        gpus=lot.gpu_count,
        gpus_per_node=lot.gpus_per_node,
        divisible=lot.divisible,
        min_block_nodes=(lot.min_block_nodes or 1) if lot.divisible else 1,
        region=lot.region or None,
        number=lot.number,
    )


def _useful_fraction(
    *, lot: Lot, offer: LotOffer, base: BidOffer, profile: RequestProfile
) -> Decimal | None:
    figures = lot_figures(
        request=profile, bid=base, lot=lot.spec(), offer=offer, start=lot.start, end=lot.end
    )
    paid = offer.nodes * lot.gpus_per_node * lot.term_hours
    if figures is None or paid <= 0:
        return None
    fraction = Decimal(str(figures.useful_gpu_hours)) / paid
    return min(fraction, Decimal(1)).quantize(FRACTION, rounding=ROUND_HALF_UP)


def award_inputs(*, capacity_request: CapacityRequest) -> AwardInputs:
    """A constant number of queries for any number of lots and bids."""
    lots = {lot.number: lot for lot in lot_list(capacity_request=capacity_request)}
    implicit = not lots
    if implicit:
        lots = {1: _implicit_lot(capacity_request)}
    rows = _solvable_rows(capacity_request)
    context = scoring_context(
        capacity_request=capacity_request, bids=[(bid.pk, bid.provider_id) for bid, _ in rows]
    )
    profile = request_profile(capacity_request, targets=context.targets)
    specs = [] if implicit else [lot.spec() for lot in lots.values()]
    out = AwardInputs(
        lots=[_lot_spec(lot) for lot in lots.values()],
        offers=[],
        bundles=[],
        providers={bid.provider_id: bid.provider.name for bid, _ in rows},
        revision_ids=sorted(rev.pk for _, rev in rows),
    )
    for bid, revision in rows:
        bid.request = capacity_request
        revision.bid = bid
        terms = lot_terms(revision, specs)
        provider = bid.provider.name
        base = bid_offer(
            revision,
            ack=context.acks.get(bid.pk, (NOT_ACKNOWLEDGED, 0)),
            history=context.histories.get(bid.provider_id),
            verified=context.verified.get(bid.pk),
        )
        for offer in _offers_of(revision, terms, implicit):
            lot = lots.get(offer.lot)
            if lot is None:
                continue
            fraction = _useful_fraction(lot=lot, offer=offer, base=base, profile=profile)
            if fraction is None:
                out.skipped.append(f"{provider} on {_key(lot)}: it cannot be scored.")
                continue
            out.offers.append(
                award.Offer(
                    key=f"{provider} · {_key(lot)}",
                    provider=provider,
                    lot=_key(lot),
                    max_nodes=offer.nodes,
                    price_per_gpu_hour=offer.price_per_gpu_hour,
                    hours=lot.term_hours,
                    useful_fraction=fraction,
                    region=revision.region or "unstated",
                    fabric_domain=f"bid {bid.pk}",
                )
            )
        out.bundles.extend(
            award.Bundle(
                provider=provider,
                kind=b.kind,  # type: ignore[arg-type]
                lots=tuple(lot_key(n) for n in b.lots),
                discount_pct=b.discount_pct or Decimal(0),
                max_gpus=b.max_gpus,
            )
            for b in terms.bundles
        )
    return out


def engine_scenario(scenario: AwardScenario, providers: Mapping[int, str]) -> award.Scenario:
    """The stored rules with providers by name. A named provider without a visible bid keeps
    its rule under a placeholder name, so an exclusion or minimum share is never silently lost."""

    def name(org_id: object) -> str:
        return providers.get(int(str(org_id)), f"provider #{org_id}")

    return award.Scenario(
        objective=scenario.objective,  # type: ignore[arg-type]
        min_providers=scenario.min_providers,
        max_providers=scenario.max_providers,
        max_share_pct=scenario.max_share_pct,
        share_basis=scenario.share_basis,  # type: ignore[arg-type]
        min_share_pct={name(k): Decimal(str(v)) for k, v in (scenario.min_share or {}).items()},
        min_regions=scenario.min_regions,
        budget=scenario.budget,
        excluded_providers=frozenset(name(k) for k in scenario.excluded_providers or []),
        one_fabric_domain_per_lot=scenario.one_fabric_domain_per_lot,
        required_useful_gpu_hours=scenario.required_useful_gpu_hours,
    )
