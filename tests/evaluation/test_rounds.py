"""Round 1 and the best-and-final round side by side: each round scored from its own revisions,
a shortlisted bid that did not revise keeps its round-1 offer, anonymised labels stay anonymous,
and the build's query count does not grow with the bids."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from acceptance.services import fixture_from_template
from bids import services
from bids.choices import BidStatus
from bids.models import CapacityRequest
from core.errors import ServiceError
from evaluation.debrief import award_with_debrief
from evaluation.rounds import round_comparison
from notices.choices import Event
from notices.models import Notice
from tests.factories import BidFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def _final_round(req: CapacityRequest, buyer, shortlist) -> None:
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    services.final_round_open(
        capacity_request=req,
        user=buyer.user,
        shortlist=[b.pk for b in shortlist],
        bid_deadline=timezone.now() + timedelta(days=3),
        confirmed=True,
    )
    req.refresh_from_db()
    for bid in shortlist:
        bid.refresh_from_db()


@pytest.fixture
def third(world, buyer):
    """A third submitted bid on the world's request (2.40 USD), from another provider."""
    bid = BidFactory(request=world.request)
    user = UserFactory(username="tess")
    MembershipFactory(user=user, organization=bid.provider)
    services.bid_submit(bid=bid, user=user)
    bid.refresh_from_db()
    return bid


def test_both_rounds_side_by_side_after_the_final_round_closes(world, third, buyer, provider):
    req = world.request
    _final_round(req, buyer, [world.bid, world.rival_bid])
    assert round_comparison(capacity_request=req) is None  # sealed until the deadline or a close
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("1.900")}
    )
    services.bid_submit(bid=world.bid, user=provider.user)
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    req.refresh_from_db()

    rounds = round_comparison(capacity_request=req)
    assert rounds is not None
    rows = {row.name: row for row in rounds.rows}
    revised = rows["Northwind"]
    assert revised.revised and revised.shortlisted
    assert revised.first.price_per_gpu_hour == Decimal("2.400")
    assert revised.final.price_per_gpu_hour == Decimal("1.900")
    assert revised.final.revision == 2 and revised.first.revision == 1
    assert revised.price_change == Decimal("-0.500")
    # Cheaper after the final round: it now ranks first of the two finalists.
    assert revised.final.rank == 1
    assert revised.final.effective_price < revised.first.effective_price
    kept = rows["Rival Cloud"]
    assert not kept.revised and kept.final.price_per_gpu_hour == kept.first.price_per_gpu_hour
    out = rows[third.provider.name]
    assert not out.shortlisted and out.final is None and out.first.rank is not None
    # Round 1 ranks all three bids; the final round only the two shortlisted.
    assert sorted(r.first.rank or 0 for r in rounds.rows if r.first) == [1, 2, 3]
    assert sorted(r.final.rank or 0 for r in rounds.rows if r.final) == [1, 2]


def test_no_side_by_side_without_a_final_round(world, buyer):
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    assert round_comparison(capacity_request=world.request) is None


def test_anonymised_rounds_name_no_provider(world, third, buyer):
    _final_round(world.request, buyer, [world.bid])
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    rounds = round_comparison(capacity_request=world.request, anonymise=True)
    assert rounds is not None
    assert {row.name for row in rounds.rows} == {"Bid A", "Bid B", "Bid C"}


def test_the_comparison_page_shows_both_rounds(world, third, buyer, provider):
    req = world.request
    _final_round(req, buyer, [world.bid, world.rival_bid])
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("1.900")}
    )
    services.bid_submit(bid=world.bid, user=provider.user)
    client = buyer.client()
    url = reverse("evaluation:request-compare", args=[req.pk])
    assert 'id="rounds"' not in client.get(url).content.decode()  # sealed meanwhile
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    page = client.get(url).content.decode()
    table = page[page.index('id="rounds-table"') :]
    table = table[: table.index("</table>")]
    assert "$2.400" in table and "$1.900" in table and "not shortlisted" in table
    anonymous = client.get(url + "?labels=anonymous").content.decode()
    section = anonymous[anonymous.index('id="rounds"') :]
    section = section[: section.index("</section>")]
    assert "Northwind" not in section and "Bid A" in section


def test_the_build_reads_as_many_queries_for_two_bids_as_for_five(world, buyer, buyer_org):
    def count(req: CapacityRequest) -> int:
        with CaptureQueriesContext(connection) as queries:
            round_comparison(capacity_request=req)
        return len(queries)

    small = world.request
    _final_round(small, buyer, [world.bid])
    services.request_close(capacity_request=small, user=buyer.user, confirmed=True)
    large = CapacityRequest.objects.create(
        **{
            f.name: getattr(small, f.name)
            for f in CapacityRequest._meta.concrete_fields
            if f.name not in ("id", "round", "status", "closed_at", "bids_opened_at")
        },
        status="open",
    )
    bids = []
    for n in range(5):
        bid = BidFactory(request=large)
        user = UserFactory(username=f"p{n}")
        MembershipFactory(user=user, organization=bid.provider)
        services.bid_submit(bid=bid, user=user)
        bids.append(bid)
    _final_round(large, buyer, bids[:3])
    services.request_close(capacity_request=large, user=buyer.user, confirmed=True)
    assert count(small) == count(large)


def test_the_award_follows_the_final_round(world, third, buyer):
    req = world.request
    fixture_from_template(capacity_request=req, user=buyer.user, template="rank-sum-allreduce")
    _final_round(req, buyer, [world.bid, world.rival_bid])
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    req.refresh_from_db()
    with pytest.raises(ServiceError, match="not shortlisted"):
        award_with_debrief(capacity_request=req, bid=third, user=buyer.user)
    award_with_debrief(
        capacity_request=req, bid=world.rival_bid, user=buyer.user, justification="Site"
    )
    third.refresh_from_db()
    world.bid.refresh_from_db()
    assert third.status == BidStatus.LOST and world.bid.status == BidStatus.LOST


def test_a_bid_left_out_of_the_final_round_is_debriefed_by_notice_and_on_its_page(
    world, third, buyer, provider, django_capture_on_commit_callbacks
):
    """GIVEN a final round between two of three bids WHEN the buyer awards one finalist THEN the
    bid left out hears that it lost and why, by notice and on its own bid page, and the losing
    finalist reads its debrief on its page too; neither page names the winner."""
    req = world.request
    fixture_from_template(capacity_request=req, user=buyer.user, template="rank-sum-allreduce")
    _final_round(req, buyer, [world.bid, world.rival_bid])
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    req.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        award_with_debrief(
            capacity_request=req, bid=world.rival_bid, user=buyer.user, justification="Site"
        )
    tess = User.objects.get(username="tess")
    notice = Notice.objects.get(recipient=tess, event=Event.LOSS)
    assert "not shortlisted for the best-and-final round" in notice.body
    assert "In round 1 your bid ranked" in notice.body
    assert notice.path == reverse("bids:bid-detail", args=[third.pk])

    client = Client()
    client.force_login(tess)
    page = client.get(reverse("bids:bid-detail", args=[third.pk])).content.decode()
    debrief = page[page.index('id="debrief"') :]
    assert "not shortlisted for the best-and-final round" in debrief
    assert "Rival Cloud" not in debrief
    finalist = provider.client().get(reverse("bids:bid-detail", args=[world.bid.pk]))
    assert 'id="debrief"' in finalist.content.decode()
    # The buyer's view of the same bid carries no debrief: it is the bidder's.
    assert (
        'id="debrief"'
        not in buyer.client().get(reverse("bids:bid-detail", args=[third.pk])).content.decode()
    )
