"""Scoring per lot, as a whole bid is scored: the goodput cost model on the lot's GPUs, term
and the offer's price, so each lot offer gets its useful GPU-hours per dollar."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from engine.scoring import BidOffer, RequestProfile, ScoringInputError, compute_cost

from .model import LotOffer, LotSpec


@dataclass(frozen=True)
class LotFigures:
    gpus: int
    useful_gpu_hours: float
    total_cost_usd: float
    effective_price: float | None  # $ per useful GPU-hour

    @property
    def useful_gpu_hours_per_dollar(self) -> float | None:
        if self.total_cost_usd <= 0:
            return None
        return self.useful_gpu_hours / self.total_cost_usd


def lot_figures(
    *,
    request: RequestProfile,
    bid: BidOffer,
    lot: LotSpec,
    offer: LotOffer,
    start: date,
    end: date,
) -> LotFigures | None:
    """The bid's terms (reliability, SLA, fabric) with the lot's size and term and the offer's
    price and nodes. Fees and egress are the whole bid's, so a lot's figures leave them out.
    None when the offer cannot be scored (no nodes, a term that ends before it starts)."""
    try:
        profile = replace(
            request,
            gpu_count=offer.nodes * lot.gpus_per_node,
            nodes=offer.nodes,
            gpus_per_node=lot.gpus_per_node,
            reservation_start=start,
            reservation_end=end,
        )
    except ScoringInputError:
        return None
    priced = replace(
        bid,
        price_per_gpu_hour=offer.price_per_gpu_hour,
        fees_usd=0,
        egress_usd=0,
        nodes=offer.nodes,
    )
    cost = compute_cost(request=profile, bid=priced)
    return LotFigures(
        gpus=profile.gpu_count,
        useful_gpu_hours=cost.useful_gpu_hours,
        total_cost_usd=cost.total_cost_usd,
        effective_price=cost.effective_price_per_useful_gpu_hour,
    )
