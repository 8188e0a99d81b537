"""The best-and-final round: after the close the buyer shortlists submitted bids and opens a
sealed final round to those providers alone, until a new deadline; the others are refused, and
told (without rivals' names) that they were not shortlisted."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from audit.selectors import entries_for
from bids import selectors, services
from bids.choices import BidStatus, RequestStatus
from bids.models import Bid, CapacityRequest
from bids.models.bids import NOT_SHORTLISTED
from core.errors import ServiceError
from core.lifecycle import MoveRefused
from notices.choices import Event
from notices.models import Notice
from orgs.choices import OrgKind
from tests.factories import BidFactory, InvitationFactory, OrganizationFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed(world, buyer) -> CapacityRequest:
    """The world's request (unsealed, two submitted bids), closed early by its buyer."""
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    world.request.refresh_from_db()
    return world.request


def _deadline(days: int = 5):
    return timezone.now() + timedelta(days=days)


def _open(req, user, shortlist, **kw):
    return services.final_round_open(
        capacity_request=req,
        user=user,
        shortlist=[b.pk for b in shortlist],
        bid_deadline=kw.pop("bid_deadline", _deadline()),
        confirmed=kw.pop("confirmed", True),
    )


def test_a_buyer_opens_a_sealed_final_round_for_the_shortlist_only(closed, world, buyer):
    assert not closed.bids_hidden_from_buyer  # round 1 was never sealed
    _open(closed, buyer.user, [world.bid])
    closed.refresh_from_db()
    assert closed.status == RequestStatus.OPEN and closed.round == 2
    assert closed.closed_at is None and closed.bids_opened_at is None
    # Sealed although the request itself is not: the buyer sees no bid until the deadline.
    assert closed.bids_hidden_from_buyer
    assert CapacityRequest.objects.filter(pk=closed.pk).bids_hidden_from_buyer().exists()
    assert selectors.bid_rows_for_buyer(capacity_request=closed) == []
    assert list(Bid.objects.filter(shortlisted=True)) == [world.bid]


def test_the_final_round_needs_the_buyer_a_close_and_a_confirmation(
    world, buyer, buyer_requester, provider
):
    # Bidding still open: close it first (409-like: refused by state).
    with pytest.raises(MoveRefused) as early:
        _open(world.request, buyer.user, [world.bid])
    assert early.value.status_code == 409 and "still open" in str(early.value)
    services.request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    with pytest.raises(MoveRefused) as party:
        _open(world.request, provider.user, [world.bid])
    assert party.value.status_code == 403
    with pytest.raises(MoveRefused) as unconfirmed:
        _open(world.request, buyer.user, [world.bid], confirmed=False)
    assert unconfirmed.value.status_code == 400 and "confirm" in unconfirmed.value.message_dict
    world.request.refresh_from_db()
    assert world.request.round == 1 and world.request.status == RequestStatus.CLOSED
    # Any member of the buyer's team may, as for a reopen: a requester too.
    _open(world.request, buyer_requester.user, [world.bid])
    world.request.refresh_from_db()
    with pytest.raises(MoveRefused, match="already been held"):
        _open(world.request, buyer.user, [world.bid])


def test_an_open_request_past_its_deadline_may_go_to_a_final_round(world, buyer):
    CapacityRequest.objects.filter(pk=world.request.pk).update(
        bid_deadline=timezone.now() - timedelta(hours=1)
    )
    world.request.refresh_from_db()
    _open(world.request, buyer.user, [world.bid, world.rival_bid])
    world.request.refresh_from_db()
    assert world.request.round == 2 and world.request.status == RequestStatus.OPEN


def test_shortlist_and_deadline_are_named_when_wrong(closed, world, buyer):
    with pytest.raises(ValidationError) as both:
        _open(closed, buyer.user, [], bid_deadline=timezone.now() - timedelta(minutes=1))
    assert "at least one submitted bid" in both.value.message_dict["shortlist"][0]
    assert "must be in the future" in both.value.message_dict["bid_deadline"][0]
    # A bid of another request is worded like any id that is not a submitted bid here.
    other = BidFactory()
    with pytest.raises(ValidationError) as stranger:
        services.final_round_open(
            capacity_request=closed,
            user=buyer.user,
            shortlist=[other.pk],
            bid_deadline=_deadline(),
            confirmed=True,
        )
    assert f"Bid {other.pk} is not a submitted bid" in stranger.value.message_dict["shortlist"][0]
    closed.refresh_from_db()
    assert closed.round == 1 and not Bid.objects.filter(shortlisted=True).exists()


def test_only_shortlisted_providers_revise_in_the_final_round(
    closed, world, buyer, provider, rival_provider
):
    _open(closed, buyer.user, [world.bid])
    # The shortlisted provider revises its price: revision 2, submitted in round 2.
    world.bid.refresh_from_db()
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.100")}
    )
    revision = services.bid_submit(bid=world.bid, user=provider.user)
    assert revision.number == 2 and revision.round == 2
    # The other cannot edit, submit or withdraw, with a message that says why.
    world.rival_bid.refresh_from_db()
    for attempt in (
        lambda: services.bid_save_draft(
            bid=world.rival_bid, user=rival_provider.user, data={"price_per_gpu_hour": "1"}
        ),
        lambda: services.bid_submit(bid=world.rival_bid, user=rival_provider.user),
        lambda: services.bid_withdraw(bid=world.rival_bid, user=rival_provider.user),
    ):
        with pytest.raises(MoveRefused) as refused:
            attempt()
        assert str(refused.value.messages[0]) == NOT_SHORTLISTED
    world.rival_bid.refresh_from_db()
    assert world.rival_bid.latest_revision_number == 1
    assert world.rival_bid.status == BidStatus.SUBMITTED


def test_nobody_new_joins_the_final_round(closed, world, buyer):
    late = OrganizationFactory(name="Late Cloud", slug="late", kind=OrgKind.PROVIDER)
    InvitationFactory(request=closed, provider=late)
    _open(closed, buyer.user, [world.bid])
    with pytest.raises(ServiceError, match="shortlisted bids only"):
        services.bid_start(capacity_request=closed, provider=late, user=buyer.user)
    newcomer = OrganizationFactory(name="New Cloud", slug="new", kind=OrgKind.PROVIDER)
    with pytest.raises(MoveRefused, match="nobody new can join"):
        services.request_invite(capacity_request=closed, user=buyer.user, providers=[newcomer])


def test_the_final_round_opens_at_its_close_and_scores_the_shortlist(
    closed, world, buyer, provider
):
    _open(closed, buyer.user, [world.bid])
    services.request_close(capacity_request=closed, user=buyer.user, confirmed=True)
    closed.refresh_from_db()
    assert not closed.bids_hidden_from_buyer and closed.status == RequestStatus.CLOSED
    from evaluation.services import scoring_revisions

    # Not revised: its round-1 revision is its final offer; the rival is out of the running.
    assert [r.bid_id for r in scoring_revisions(capacity_request=closed)] == [world.bid.pk]
    from acceptance.selectors.burnin import awardable_bids

    assert list(awardable_bids(capacity_request=closed)) == [world.bid]
    from bids.services.award import award_refusal

    refusal = award_refusal(capacity_request=closed, bid=world.rival_bid, user=buyer.user)
    assert refusal is not None and "not shortlisted" in refusal


def test_each_invitee_hears_only_of_its_own_place(closed, world, buyer, provider, rival_provider):
    _open(closed, buyer.user, [world.bid])
    mine = Notice.objects.get(recipient=provider.user, event=Event.FINAL_ROUND)
    theirs = Notice.objects.get(recipient=rival_provider.user, event=Event.FINAL_ROUND)
    assert mine.subject.startswith("Shortlisted") and "revise" in mine.body
    assert theirs.subject.startswith("Not shortlisted")
    # Neither names the other provider.
    assert "Rival Cloud" not in mine.subject + mine.body
    assert "Northwind" not in theirs.subject + theirs.body


def test_every_move_is_audited_and_the_shortlist_is_each_providers_own(
    closed, world, buyer, provider, rival_provider
):
    _open(closed, buyer.user, [world.bid])
    opened = AuditEntry.objects.get(action="request.final_round")
    assert opened.after["round"] == 2 and opened.after["shortlisted"] == 1
    assert AuditEntry.objects.filter(action="request.shortlist").count() == 1
    assert AuditEntry.objects.filter(action="request.not_shortlisted").count() == 1
    key = f"request:{closed.pk}"
    seen_by_rival = [e.action for e in entries_for(org=rival_provider.org, obj_key=key)]
    assert "request.final_round" in seen_by_rival and "request.not_shortlisted" in seen_by_rival
    assert "request.shortlist" not in seen_by_rival


def test_the_pages_offer_the_round_and_refuse_the_others(
    closed, world, buyer, provider, rival_provider
):
    client = buyer.client()
    detail = client.get(reverse("bids:request-detail", args=[closed.pk])).content.decode()
    assert "Open a best-and-final round" in detail
    url = reverse("bids:request-final-round", args=[closed.pk])
    page = client.get(url).content.decode()
    assert "Northwind" in page and "Rival Cloud" in page and "sealed" in page
    # Nothing chosen: the page again, with the deadline typed kept and each field's error.
    typed = timezone.localtime(_deadline()).strftime("%Y-%m-%dT%H:%M")
    again = client.post(url, {"bid_deadline": typed, "confirm": "on"})
    assert again.status_code == 200
    body = again.content.decode()
    assert "Shortlist at least one submitted bid" in body and typed in body
    one = {"bid_deadline": typed, "confirm": "on", "shortlist": [world.bid.pk]}
    # One shortlisted bid is irreversible and one tick away: the page asks again, in words.
    warned = client.post(url, one)
    assert warned.status_code == 200
    warning = warned.content.decode()
    assert "Only one bid is shortlisted" in warning and "cannot be undone" in warning
    closed.refresh_from_db()
    assert not closed.in_final_round
    done = client.post(url, {**one, "confirm_single": "on"})
    assert done.status_code == 302
    rival_page = rival_provider.client().get(reverse("bids:request-detail", args=[closed.pk]))
    text = rival_page.content.decode()
    assert "not shortlisted" in text and "Northwind" not in text
    own_page = provider.client().get(reverse("bids:request-detail", args=[closed.pk]))
    assert "Your bid is shortlisted" in own_page.content.decode()
    bid_page = rival_provider.client().get(reverse("bids:bid-detail", args=[world.rival_bid.pk]))
    assert NOT_SHORTLISTED in bid_page.content.decode()


def test_the_final_round_is_sealed_like_round_one(closed, world, buyer, provider):
    """An unsealed request's final round still tells its buyer nothing before the close: no
    bid, no page, no notice, no audit entry of the revision."""
    _open(closed, buyer.user, [world.bid, world.rival_bid])
    world.bid.refresh_from_db()
    services.bid_save_draft(
        bid=world.bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.000")}
    )
    before = Notice.objects.filter(recipient=buyer.user, event=Event.BID_SUBMITTED).count()
    services.bid_submit(bid=world.bid, user=provider.user)
    after = Notice.objects.filter(recipient=buyer.user, event=Event.BID_SUBMITTED).count()
    assert after == before  # round 1 was open: its notices were sent then
    key = f"bid:{world.bid.pk}"
    assert not entries_for(org=buyer.org, obj_key=key).filter(action="bid.submit").exists()
    client = buyer.client()
    assert client.get(reverse("bids:bid-detail", args=[world.bid.pk])).status_code == 404
    compare = client.get(reverse("evaluation:request-compare", args=[closed.pk]))
    assert "This request is sealed" in compare.content.decode()
    # The close opens them, and the buyer hears how many shortlisted bids stand.
    services.request_close(capacity_request=closed, user=buyer.user, confirmed=True)
    submits = entries_for(org=buyer.org, obj_key=key).filter(action="bid.submit")
    assert [e.after.get("round") for e in submits.order_by("seq")] == [None, 2]
    opened = Notice.objects.get(recipient=buyer.user, event=Event.BIDS_OPENED)
    assert "2 bids received" in opened.subject
    assert client.get(reverse("bids:bid-detail", args=[world.bid.pk])).status_code == 200


def test_a_later_deadline_in_the_final_round_is_news_to_the_shortlist_only(
    closed, world, buyer, provider, rival_provider
):
    _open(closed, buyer.user, [world.bid])
    closed.refresh_from_db()
    services.request_update(
        capacity_request=closed, user=buyer.user, data={"bid_deadline": _deadline(days=9)}
    )
    told = Notice.objects.filter(event=Event.DEADLINE_CHANGED)
    assert {n.recipient for n in told} == {provider.user}
