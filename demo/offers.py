"""The scoring package's demo offers as bid terms: the seeded bids and the pure scoring tests
read the same numbers."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from engine.scoring import BidOffer
from engine.scoring import demo as scoring_demo

# The bid terms come from the scoring package's demo offers, so the seeded comparison page and
# the pure scoring tests read the same numbers (docs/scoring.md, section 6, explains them).
_OFFER_FIELDS = (
    "price_per_gpu_hour",
    "fees_usd",
    "egress_usd",
    "region",
    "available_end",
    "gpu_model",
    "nodes",
    "gpus_per_node",
    "nvlink_domain_size",
    "fabric",
    "nics_per_node",
    "nic_rate_gbps",
    "rail_optimised",
    "leaf_switches",
    "isolation_class",
    "mig_profile",
    "time_slice_replicas",
    "scheduler",
    "topology_aware",
    "gang_scheduling",
    "health_checks_auto_drain",
    "spares_count",
    "spares_location",
    "coverage",
    "site_readiness",
)


def offer_terms(offer: BidOffer, *, reservation_start: date) -> dict[str, Any]:
    """A scoring demo offer as bid terms, its start shifted to the seeded reservation's."""
    terms = {name: getattr(offer, name) for name in _OFFER_FIELDS}
    lead = scoring_demo.demo_request().reservation_start - offer.available_start
    mtbf = offer.declared_node_mtbf_hours
    terms.update(
        available_start=reservation_start - lead,
        oversubscription_ratio=Decimal(str(offer.oversubscription_ratio)),
        uptime_pct=Decimal(str(offer.uptime_pct)),
        node_replacement_hours=Decimal(str(offer.node_replacement_hours)),
        declared_node_mtbf_hours=int(mtbf) if mtbf is not None else None,
    )
    return terms
