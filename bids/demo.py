"""Demo data: one buyer, one request, three providers whose bids differ the way real ones do."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from bids import services
from bids.choices import MemberRole, OrgKind, RequestStatus
from bids.models import Bid, CapacityRequest, Membership, Organization

DEMO_PASSWORD = "clusterbid-demo"
REQUEST_TITLE = "16 × H200, two 8-GPU servers"


@dataclass(frozen=True)
class DemoLogin:
    username: str
    organization: str
    role: str


PROVIDERS: list[dict[str, Any]] = [
    {
        "org": "Northwind Compute",
        "user": "nora",
        "terms": {
            "price_per_gpu_hour": Decimal("2.10"),
            "fees_usd": Decimal("0"),
            "egress_usd": Decimal("1500"),
            "region": "eu",
            "site": "Frankfurt FRA-2",
            "node_replacement_hours": Decimal("72"),
            "spares_count": 0,
            "spares_location": "none",
            "coverage": "business_hours",
            "declared_node_mtbf_hours": None,
            "health_checks_auto_drain": False,
            "topology_aware": False,
            "uptime_pct": Decimal("99.0"),
            "sla_credits": "5% of monthly fee per 1% below SLA",
            "billing_terms": "Monthly in advance",
        },
    },
    {
        "org": "Aurora GPU Cloud",
        "user": "arun",
        "terms": {
            "price_per_gpu_hour": Decimal("2.65"),
            "fees_usd": Decimal("4000"),
            "egress_usd": Decimal("0"),
            "region": "nordics",
            "site": "Stockholm STO-1",
            "node_replacement_hours": Decimal("4"),
            "spares_count": 2,
            "spares_location": "same_fabric_domain",
            "coverage": "24x7",
            "declared_node_mtbf_hours": 8000,
            "health_checks_auto_drain": True,
            "topology_aware": True,
            "gang_scheduling": True,
            "uptime_pct": Decimal("99.9"),
            "sla_credits": "10% of daily fee per hour of S1 outage",
            "billing_terms": "Monthly in arrears",
        },
    },
    {
        "org": "Pacifica Neocloud",
        "user": "pat",
        "terms": {
            "price_per_gpu_hour": Decimal("1.95"),
            "fees_usd": Decimal("0"),
            "egress_usd": Decimal("0"),
            "region": "us-west",
            "site": "Hillsboro PDX-4",
            "node_replacement_hours": Decimal("24"),
            "spares_count": 1,
            "spares_location": "same_site",
            "coverage": "extended",
            "declared_node_mtbf_hours": None,
            "uptime_pct": Decimal("99.5"),
            "billing_terms": "Quarterly in advance",
        },
    },
]


def _user(username: str, email: str) -> Any:
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=username, defaults={"email": email})
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    return user


def _org(name: str, kind: str) -> Organization:
    slug = name.lower().replace(" ", "-")
    org, _ = Organization.objects.get_or_create(slug=slug, defaults={"name": name, "kind": kind})
    return org


def _member(user: Any, org: Organization, role: str = MemberRole.ADMIN) -> None:
    Membership.objects.get_or_create(user=user, organization=org, defaults={"role": role})


@transaction.atomic
def seed_demo() -> list[DemoLogin]:
    """Create the demo once; running it again changes nothing."""
    logins: list[DemoLogin] = []
    buyer = _org("Helix Labs", OrgKind.BUYER)
    alice = _user("alice", "alice@helix.example")
    _member(alice, buyer)
    bob = _user("bob", "bob@helix.example")
    _member(bob, buyer, MemberRole.MEMBER)
    logins += [DemoLogin("alice", buyer.name, "buyer"), DemoLogin("bob", buyer.name, "buyer")]

    providers = []
    for spec in PROVIDERS:
        org = _org(spec["org"], OrgKind.PROVIDER)
        user = _user(spec["user"], f"{spec['user']}@{org.slug}.example")
        _member(user, org)
        providers.append((org, user, spec["terms"]))
        logins.append(DemoLogin(spec["user"], org.name, "provider"))

    if CapacityRequest.objects.filter(buyer=buyer, title=REQUEST_TITLE).exists():
        return logins

    today = timezone.localdate()
    # The first of the month after next: far enough for a 14-day bidding window.
    next_month = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    start = (next_month + timedelta(days=32)).replace(day=1)
    req = services.request_create(
        buyer=buyer,
        user=alice,
        data={
            "title": REQUEST_TITLE,
            "description": "Pre-training run for a 13B model. Two HGX H200 servers on one "
            "non-blocking InfiniBand fabric, one leaf switch, Slurm.",
            "gpu_model": "H200",
            "gpu_count": 16,
            "nodes": 2,
            "gpus_per_node": 8,
            "nvlink_domain_size": 8,
            "fabric": "infiniband",
            "per_gpu_bandwidth_gbps": 400,
            "max_leaf_switches": 1,
            "single_fabric_domain": True,
            "isolation_class": "whole_device",
            "scheduler": "slurm",
            "acceptable_regions": ["eu", "nordics", "uk"],
            "reservation_start": start,
            "reservation_end": start + timedelta(days=89),
            "bid_deadline": timezone.now() + timedelta(days=14),
            "sealed": False,
            "checkpoint_write_seconds": 60,
            "restart_seconds": 300,
            "run_length_hours": 2000,
        },
    )
    services.request_invite(request=req, providers=[org for org, _, _ in providers])
    services.request_publish(request=req)
    for org, user, terms in providers:
        bid = services.bid_start(request=req, provider=org, user=user)
        services.bid_save_draft(bid=bid, user=user, data=terms)
        services.bid_submit(bid=Bid.objects.get(pk=bid.pk), user=user)
    assert req.status == RequestStatus.OPEN
    return logins
