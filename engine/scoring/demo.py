"""The demo scenario: one request and three bids. The one source for the demo seed and the tests.

16 H200 as 2 nodes x 8 in the EU, Nordics or UK, 1 Feb - 30 Apr 2027, 60 s checkpoints,
300 s restart. `demo.seed.seed_demo()` builds its bids from these offers, so the seeded demo
and the pure tests score the same inputs. Region codes are the `bids.choices.Region` values.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from .inputs import BidOffer, RequestProfile


def demo_request() -> RequestProfile:
    return RequestProfile(
        gpu_model="H200",
        gpu_count=16,
        nodes=2,
        gpus_per_node=8,
        nvlink_domain_size=8,
        fabric="infiniband",
        per_gpu_bandwidth_gbps=400,
        max_leaf_switches=1,
        single_fabric_domain=True,
        accepted_offer_kinds=("whole_device",),
        scheduler="slurm",
        acceptable_regions=("eu", "nordics", "uk"),
        reservation_start=date(2027, 2, 1),
        reservation_end=date(2027, 4, 30),
        checkpoint_write_seconds=60.0,
        restart_seconds=300.0,
        run_length_hours=2_000.0,
        target_response_minutes={"S1": 30.0, "S2": 120.0, "S3": 480.0},
    )


def demo_cheap() -> BidOffer:
    """Lowest EU price from a young site; no spares, 72 h replacement, business hours.

    The site opened last year and declares the node MTBF its own first-year fleet data shows,
    about 1,500 h: early-life failures (GPU, HBM, NIC, PSU) before the fleet has burnt in.
    With 72 h repairs and nobody on shift at night, that is what costs it the lead on price.
    """
    return BidOffer(
        label="cheap",
        price_per_gpu_hour=Decimal("2.10"),
        fees_usd=Decimal("0"),
        egress_usd=Decimal("1200"),
        region="eu",
        available_start=date(2027, 2, 1),
        available_end=None,
        gpu_model="H200",
        nodes=2,
        gpus_per_node=8,
        nvlink_domain_size=8,
        fabric="roce",
        nics_per_node=4,
        nic_rate_gbps=400,
        rail_optimised=False,
        oversubscription_ratio=2.0,
        leaf_switches=2,
        isolation_class="whole_device",
        scheduler="slurm",
        topology_aware=False,
        gang_scheduling=False,
        health_checks_auto_drain=False,
        uptime_pct=99.5,
        node_replacement_hours=72.0,
        spares_count=0,
        spares_location="none",
        coverage="business_hours",
        declared_node_mtbf_hours=1_500.0,
        site_readiness="live",
        acknowledgement="accepted_with_exceptions",
        acknowledgement_exceptions=2,
        evidence_shared=False,
        response_minutes={"S1": 240.0, "S2": 480.0, "S3": 1_440.0},
    )


def demo_premium() -> BidOffer:
    """Dearer list price with egress included, 2 hot spares on the same fabric, 24x7, 4 h
    replacement, and a declared node MTBF of 8,000 h from a fleet that has run for years."""
    return BidOffer(
        label="premium",
        price_per_gpu_hour=Decimal("2.32"),
        fees_usd=Decimal("0"),
        egress_usd=Decimal("0"),
        region="nordics",
        available_start=date(2027, 1, 18),
        available_end=None,
        gpu_model="H200",
        nodes=2,
        gpus_per_node=8,
        nvlink_domain_size=8,
        fabric="infiniband",
        nics_per_node=8,
        nic_rate_gbps=400,
        rail_optimised=True,
        oversubscription_ratio=1.0,
        leaf_switches=1,
        isolation_class="whole_device",
        scheduler="slurm",
        topology_aware=True,
        gang_scheduling=True,
        health_checks_auto_drain=True,
        uptime_pct=99.9,
        node_replacement_hours=4.0,
        spares_count=2,
        spares_location="same_fabric_domain",
        coverage="24x7",
        declared_node_mtbf_hours=8_000.0,
        site_readiness="live",
        acknowledgement="accepted",
        acknowledgement_exceptions=0,
        evidence_shared=True,
        response_minutes={"S1": 15.0, "S2": 60.0, "S3": 240.0},
    )


def demo_wrong_region() -> BidOffer:
    """Cheapest of all and well built, but in US West: disqualified on region."""
    return BidOffer(
        label="wrong-region",
        price_per_gpu_hour=Decimal("1.95"),
        fees_usd=Decimal("0"),
        egress_usd=Decimal("1200"),
        region="us-west",
        available_start=date(2027, 1, 25),
        available_end=None,
        gpu_model="H200",
        nodes=2,
        gpus_per_node=8,
        nvlink_domain_size=8,
        fabric="infiniband",
        nics_per_node=8,
        nic_rate_gbps=400,
        rail_optimised=True,
        oversubscription_ratio=1.0,
        leaf_switches=1,
        isolation_class="whole_device",
        scheduler="slurm",
        topology_aware=True,
        gang_scheduling=True,
        health_checks_auto_drain=True,
        uptime_pct=99.9,
        node_replacement_hours=24.0,
        spares_count=1,
        spares_location="same_site",
        coverage="24x7",
        declared_node_mtbf_hours=None,
        site_readiness="live",
        acknowledgement="accepted",
        acknowledgement_exceptions=0,
        evidence_shared=True,
        response_minutes={"S1": 30.0, "S2": 120.0, "S3": 480.0},
    )


def demo_bids() -> tuple[BidOffer, BidOffer, BidOffer]:
    return (demo_cheap(), demo_premium(), demo_wrong_region())
