"""The comparison page's lots, side by side: per lot, each visible bid's offer on it, scored as
a whole bid is (useful GPU-hours per dollar), best first, with the bid's bundle conditions.

Reads only what the buyer may: the latest submitted revision of each bid, none while sealed
(`bid_rows_for_buyer`). A constant number of queries for any number of lots and bids."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from bids.lots import LotTerms, lot_list, lot_terms
from bids.models import CapacityRequest, Lot
from bids.selectors import bid_rows_for_buyer
from engine.lots import LotFigures, lot_figures
from evaluation.scoring_io import NOT_ACKNOWLEDGED, bid_offer, request_profile, scoring_context


@dataclass(frozen=True)
class LotRow:
    name: str
    price_per_gpu_hour: Decimal
    nodes: int
    figures: LotFigures | None
    bundles: list[str]
    rank: int | None = None


@dataclass
class LotSection:
    lot: Lot
    rows: list[LotRow] = field(default_factory=list)


def _ranked(rows: list[LotRow]) -> list[LotRow]:
    def key(row: LotRow) -> float:
        per_dollar = row.figures.useful_gpu_hours_per_dollar if row.figures else None
        return -(per_dollar or 0.0)

    ordered = sorted(rows, key=key)
    return [
        LotRow(**{**row.__dict__, "rank": i if row.figures else None})
        for i, row in enumerate(ordered, start=1)
    ]


def lot_comparison(
    *, capacity_request: CapacityRequest, names: dict[int, str], anonymise: bool
) -> list[LotSection]:
    """`names`: the comparison's name for each bid by bid id (anonymised labels included); a
    bid the last scoring run has not named yet shows its provider's name, or none."""
    lots = list(lot_list(capacity_request=capacity_request))
    if not lots:
        return []
    sections = {lot.number: LotSection(lot=lot) for lot in lots}
    rows = bid_rows_for_buyer(capacity_request=capacity_request)
    if not rows:
        return list(sections.values())
    specs = [lot.spec() for lot in lots]
    context = scoring_context(
        capacity_request=capacity_request, bids=[(bid.pk, bid.provider_id) for bid, _ in rows]
    )
    profile = request_profile(capacity_request, targets=context.targets)
    for bid, revision in rows:
        bid.request = capacity_request
        revision.bid = bid
        terms: LotTerms = lot_terms(revision, specs)
        offer_base = bid_offer(
            revision,
            ack=context.acks.get(bid.pk, (NOT_ACKNOWLEDGED, 0)),
            history=context.histories.get(bid.provider_id),
            verified=context.verified.get(bid.pk),
        )
        fallback = "Unnamed bid" if anonymise else bid.provider.name
        for offer in terms.offers:
            section = sections.get(offer.lot)
            if section is None:
                continue
            figures = lot_figures(
                request=profile,
                bid=offer_base,
                lot=section.lot.spec(),
                offer=offer,
                start=section.lot.start,
                end=section.lot.end,
            )
            section.rows.append(
                LotRow(
                    name=names.get(bid.pk, fallback),
                    price_per_gpu_hour=offer.price_per_gpu_hour,
                    nodes=offer.nodes,
                    figures=figures,
                    bundles=terms.bundle_lines(lot=offer.lot),
                )
            )
    for section in sections.values():
        section.rows = _ranked(section.rows)
    return list(sections.values())
