"""Demo fixture and acknowledgements for the seeded request (called from the demo seed)."""

from __future__ import annotations

from django.db import transaction

from acceptance.models import Acknowledgement, AckStatus, Fixture, FixtureVersion
from acceptance.services import acknowledgement_submit, fixture_from_template
from bids.models import Bid, CapacityRequest
from contracts.demo import seed_terms_demo
from orgs.models import Membership

PREMIUM_PROVIDER = "Aurora GPU Cloud"
CHEAP_PROVIDER = "Northwind Compute"
CHEAP_EXCEPTIONS = [
    {
        "text": "S1 restore within 8 h, not 4 h: no on-site staff at night.",
        "field": "terms.s1_restore_minutes",
    },
    {
        "text": "DCGM diagnostics at level 2; level 3 takes the nodes out for too long.",
        "field": "thresholds.dcgm_level",
    },
]


# Each provider names its incident owner when it acknowledges (the terms leave it open).
PROVIDER_OWNERS = {
    PREMIUM_PROVIDER: ("Aurora NOC duty manager", "noc@aurora-gpu-cloud.example · +358 9 555 0100"),
    CHEAP_PROVIDER: ("Nils Berg (site reliability lead)", "oncall@northwind-compute.example"),
}


def _ack(bid: Bid, status: str, exceptions: list[dict[str, str]]) -> None:
    if Acknowledgement.objects.filter(bid=bid).exists():
        return
    member = Membership.objects.filter(organization=bid.provider).select_related("user").first()
    if member is None:
        return
    name, contact = PROVIDER_OWNERS.get(bid.provider.name, (None, None))
    acknowledgement_submit(
        bid=bid,
        user=member.user,
        status=status,
        exceptions=exceptions,
        provider_owner_name=name,
        provider_owner_contact=contact,
    )


@transaction.atomic
def seed_fixture_demo(capacity_request: CapacityRequest) -> FixtureVersion:
    """Default fixture and terms; Aurora accepts, Northwind accepts with 2 exceptions.

    Seeds the terms too (contracts.demo.seed_terms_demo) so acknowledgements cover both.
    Running it again changes nothing.
    """
    seed_terms_demo(capacity_request)
    fixture = Fixture.objects.filter(request=capacity_request).first()
    if fixture is None:
        user = capacity_request.created_by
        assert user is not None, "the demo request has an author"
        version = fixture_from_template(
            capacity_request=capacity_request, user=user, template="rank-sum-allreduce"
        )
    else:
        version = fixture.versions.get(number=fixture.current_number)
    bids = {b.provider.name: b for b in capacity_request.bids.select_related("provider", "request")}
    if PREMIUM_PROVIDER in bids:
        _ack(bids[PREMIUM_PROVIDER], AckStatus.ACCEPTED, [])
    if CHEAP_PROVIDER in bids:
        _ack(bids[CHEAP_PROVIDER], AckStatus.ACCEPTED_WITH_EXCEPTIONS, CHEAP_EXCEPTIONS)
    return version
