"""The worked example of docs/award-optimisation.md: 3 lots, 5 bids, 4 bundle conditions."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from engine.award import Bundle, LotSpec, Offer, Scenario

HOURS = 720

LOTS = (
    LotSpec("A", gpus=256, gpus_per_node=8, divisible=False),
    LotSpec("B", gpus=128, gpus_per_node=8, divisible=True, min_block_nodes=4),
    LotSpec("C", gpus=64, gpus_per_node=8, divisible=True, min_block_nodes=2),
)


def _offer(
    key: str, provider: str, lot: str, nodes: int, price: str, useful: str, region: str, fabric: str
) -> Offer:
    return Offer(
        key=key,
        provider=provider,
        lot=lot,
        max_nodes=nodes,
        price_per_gpu_hour=Decimal(price),
        hours=HOURS,
        useful_fraction=Decimal(useful),
        region=region,
        fabric_domain=fabric,
    )


OFFERS = (
    _offer("a1", "Aurora", "A", 32, "2.00", "0.88", "EU", "eu-1"),
    _offer("b1", "Borealis", "A", 32, "2.10", "0.94", "US", "us-1"),
    _offer("b2", "Borealis", "B", 16, "2.20", "0.94", "US", "us-1"),
    _offer("c1", "Cirrus", "B", 16, "2.15", "0.90", "EU", "eu-2"),
    _offer("a2", "Aurora", "C", 8, "2.50", "0.88", "EU", "eu-1"),
)

BUNDLES = (
    Bundle("Borealis", "all_or_nothing", lots=("A", "B")),
    Bundle("Borealis", "discount", lots=("A", "B"), discount_pct=Decimal(5)),
    Bundle("Aurora", "discount", lots=("A", "C"), discount_pct=Decimal(4)),
    Bundle("Cirrus", "max_total", lots=("B", "C"), max_gpus=96),
)

SCENARIO = Scenario(
    objective="min_cost_for_required_useful",
    max_share_pct=Decimal(75),
    share_basis="gpus",
    min_regions=2,
)

TIGHT = replace(SCENARIO, max_share_pct=Decimal(60))
