"""Demo data: one buyer, one request, three providers whose bids differ the way real ones do."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from acceptance.demo import seed_fixture_demo
from bids import services
from bids.choices import RequestStatus
from bids.models import Bid, CapacityRequest
from demo.lots import seed_lots_demo
from demo.offers import offer_terms
from engine.scoring import demo as scoring_demo
from evaluation.services import scoring_queue
from orgs.choices import MemberRole, OrgKind
from orgs.models import Membership, Organization
from questionnaire.demo import demo_submit, seed_questionnaire_demo

DEMO_PASSWORD = "clusterbid-demo"
REQUEST_TITLE = "16 × H200, two 8-GPU servers"
_DEMO_REQUEST = scoring_demo.demo_request()
AURORA_FABRIC_PLAN = """Aurora GPU Cloud: fabric plan for 16 x H200 (two HGX servers)

Leaf: one NVIDIA QM9700 NDR switch, both servers on it (rails 0-7 one to one)
Links: 8 x ConnectX-7 400 Gb/s per server, rail-optimised, no oversubscription
Spares: one hot spare server cabled to the same leaf, burn-in passed
Health: DCGM level 2 nightly, auto-drain on XID 79/94/95
"""
TERM_DAYS = (_DEMO_REQUEST.reservation_end - _DEMO_REQUEST.reservation_start).days + 1


@dataclass(frozen=True)
class DemoLogin:
    username: str
    organization: str
    role: str


PROVIDERS: list[dict[str, Any]] = [
    {
        "org": "Northwind Compute",
        "user": "nora",
        "offer": scoring_demo.demo_cheap,
        "terms": {
            "site": "Frankfurt FRA-2 (opened 2026)",
            "sla_credits": "5% of monthly fee per 1% below SLA",
            "billing_terms": "Monthly in advance",
            "notes": "Node MTBF from our first year of fleet data (1,500 h).",
        },
    },
    {
        "org": "Aurora GPU Cloud",
        "user": "arun",
        "offer": scoring_demo.demo_premium,
        "terms": {
            "site": "Stockholm STO-1",
            "sla_credits": "10% of daily fee per hour of S1 outage",
            "billing_terms": "Monthly in arrears, egress included",
            "notes": "Two hot spares racked on the job's leaf switch.",
        },
    },
    {
        "org": "Pacifica Neocloud",
        "user": "pat",
        "offer": scoring_demo.demo_wrong_region,
        "terms": {
            "site": "Hillsboro PDX-4",
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


def _member(user: Any, org: Organization, role: str = MemberRole.ADMIN) -> str:
    """Make `user` a member; their role as the login list prints it ("buyer administrator")."""
    membership, _ = Membership.objects.get_or_create(
        user=user, organization=org, defaults={"role": role}
    )
    return f"{org.get_kind_display()} {membership.get_role_display()}".lower()


@transaction.atomic
def seed_demo() -> list[DemoLogin]:
    """Create the demo once; running it again changes nothing."""
    logins: list[DemoLogin] = []
    buyer = _org("Helix Labs", OrgKind.BUYER)
    alice = _user("alice", "alice@helix.example")
    bob = _user("bob", "bob@helix.example")
    logins += [
        DemoLogin("alice", buyer.name, _member(alice, buyer)),
        DemoLogin("bob", buyer.name, _member(bob, buyer, MemberRole.APPROVER)),
    ]

    providers = []
    for spec in PROVIDERS:
        org = _org(spec["org"], OrgKind.PROVIDER)
        user = _user(spec["user"], f"{spec['user']}@{org.slug}.example")
        providers.append((org, user, spec))
        logins.append(DemoLogin(spec["user"], org.name, _member(user, org)))
    # Someone who works for two providers: the organisation switcher in the header has a use.
    sam = _user("sam", "sam@operators.example")
    roles = {_member(sam, org, MemberRole.ENGINEER) for org, _, _ in providers[:2]}
    both = " + ".join(org.name for org, _, _ in providers[:2])
    logins.append(DemoLogin("sam", both, " / ".join(sorted(roles))))

    seed_lots_demo(buyer=buyer, user=alice, providers=providers)
    existing = CapacityRequest.objects.filter(buyer=buyer, title=REQUEST_TITLE).first()
    if existing is not None:
        _score_after_commit(existing)
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
            "accepted_offer_kinds": ["whole_device"],
            "scheduler": "slurm",
            "acceptable_regions": ["eu", "nordics", "uk"],
            "reservation_start": start,
            # The same 89-day term (end date inclusive) as the scoring package's demo request.
            "reservation_end": start + timedelta(days=TERM_DAYS - 1),
            "bid_deadline": timezone.now() + timedelta(days=14),
            "sealed": False,
            "checkpoint_write_seconds": 60,
            "restart_seconds": 300,
            "run_length_hours": 2000,
        },
    )
    services.request_invite(
        capacity_request=req, user=alice, providers=[org for org, _, _ in providers]
    )
    services.request_publish(capacity_request=req, user=alice)
    for org, user, spec in providers:
        bid = services.bid_start(capacity_request=req, provider=org, user=user)
        terms = offer_terms(spec["offer"](), reservation_start=start) | spec["terms"]
        services.bid_save_draft(bid=bid, user=user, data=terms)
        services.bid_submit(bid=Bid.objects.get(pk=bid.pk), user=user)
    assert req.status == RequestStatus.OPEN
    # The other apps' demo data: questionnaire answers (new revisions), then the fixture and
    # handoff terms with the providers' acknowledgements.
    seed_questionnaire_demo(req)
    seed_fixture_demo(req)
    _seed_clarifications(req, alice, providers)
    _score_after_commit(req)
    return logins


def _seed_clarifications(
    req: CapacityRequest, alice: Any, providers: list[tuple[Organization, Any, dict[str, Any]]]
) -> None:
    """Questions on the record: Northwind's answered to every invitee without its name (what
    Aurora and Pacifica see), Pacifica's answered to Pacifica alone; and a file on Aurora's bid
    (a submitted revision carries it, so the annex would list it with its SHA-256)."""
    (northwind, nora, _), (aurora, arun, _), (pacifica, pat, _) = providers
    asked = services.question_ask(
        capacity_request=req,
        provider=northwind,
        user=nora,
        text="May the two servers sit in different racks if they share the leaf switch?",
    )
    services.question_answer(
        question=asked,
        user=alice,
        publish=True,
        answer="Yes: one leaf switch and one fabric domain is the requirement; racks are free.",
    )
    private = services.question_ask(
        capacity_request=req,
        provider=pacifica,
        user=pat,
        text="Would you consider our US-West site if the price were lower?",
    )
    services.question_answer(
        question=private,
        user=alice,
        publish=False,
        answer="No: the data must stay in the EU, the Nordics or the UK.",
    )
    bid = Bid.objects.get(request=req, provider=aurora)
    services.bid_attachment_add(
        bid=bid,
        user=arun,
        upload=SimpleUploadedFile("aurora-fabric-plan.txt", AURORA_FABRIC_PLAN.encode()),
        description="Fabric plan for the two servers (leaf, rails, spares)",
    )
    demo_submit(bid=Bid.objects.get(pk=bid.pk), user=arun)


def rescore_open_demo() -> None:
    """Score every demo request again once every demo part is in: the delivery demo's past
    incidents are the providers' track record, which scoring reads (as of a closed request's
    close), so scores taken before it was seeded show as outdated on the first visit."""
    for req in CapacityRequest.objects.filter(buyer__name="Helix Labs").exclude(
        status__in=(RequestStatus.DRAFT, RequestStatus.CANCELLED)
    ):
        _score_after_commit(req)


def _score_after_commit(req: CapacityRequest) -> None:
    """Scores on first sight: without a broker the task runs in-process once this commits."""

    transaction.on_commit(lambda: scoring_queue(capacity_request=req))
