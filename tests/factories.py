"""factory_boy factories: realistic defaults so a test names only what it is about."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from bids.choices import BidStatus, RequestStatus
from bids.models import Bid, CapacityRequest, Invitation, Lot
from orgs.choices import MemberRole, OrgKind
from orgs.models import Membership, Organization

PASSWORD = "test-pass-123"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password(PASSWORD)


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Org {n}")
    slug = factory.Sequence(lambda n: f"org-{n}")
    kind = OrgKind.BUYER


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    organization = factory.SubFactory(OrganizationFactory)
    role = MemberRole.ADMIN


class CapacityRequestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CapacityRequest

    buyer = factory.SubFactory(OrganizationFactory, kind=OrgKind.BUYER)
    title = factory.Sequence(lambda n: f"16 × H200 request {n}")
    status = RequestStatus.OPEN
    gpu_model = "H200"
    gpu_count = 16
    nodes = 2
    gpus_per_node = 8
    nvlink_domain_size = 8
    fabric = "infiniband"
    per_gpu_bandwidth_gbps = 400
    max_leaf_switches = 1
    acceptable_regions = factory.LazyFunction(lambda: ["eu", "nordics"])
    reservation_start = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=60))
    reservation_end = factory.LazyAttribute(lambda r: r.reservation_start + timedelta(days=89))
    bid_deadline = factory.LazyFunction(lambda: timezone.now() + timedelta(days=14))
    sealed = False
    published_at = factory.LazyFunction(timezone.now)

    class Params:
        # A request the buyer is still writing (lots, fixture and terms may still change).
        draft = factory.Trait(status=RequestStatus.DRAFT, published_at=None)


class InvitationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Invitation

    request = factory.SubFactory(CapacityRequestFactory)
    provider = factory.SubFactory(OrganizationFactory, kind=OrgKind.PROVIDER)


class BidFactory(factory.django.DjangoModelFactory):
    """A complete draft, ready to submit."""

    class Meta:
        model = Bid
        skip_postgeneration_save = True

    request = factory.SubFactory(CapacityRequestFactory)
    provider = factory.SubFactory(OrganizationFactory, kind=OrgKind.PROVIDER)
    status = BidStatus.DRAFT
    price_per_gpu_hour = Decimal("2.400")
    region = "eu"
    site = "Frankfurt"
    available_start = factory.LazyAttribute(lambda b: b.request.reservation_start)
    gpu_model = "H200"
    nodes = 2
    gpus_per_node = 8
    node_replacement_hours = Decimal("24")

    @factory.post_generation
    def invite(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            Invitation.objects.get_or_create(request=self.request, provider=self.provider)


class LotFactory(factory.django.DjangoModelFactory):
    """An indivisible lot of 2 × 8 GPUs; pass `number` for the second and later lots."""

    class Meta:
        model = Lot

    request = factory.SubFactory(CapacityRequestFactory)
    number = 1
    name = factory.Sequence(lambda n: f"Lot block {n}")
    nodes = 2
    gpus_per_node = 8
