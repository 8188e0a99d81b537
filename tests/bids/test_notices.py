"""What requests and bids tell whom: invitations and deadline changes to each invited provider's
members (never a rival's), bid revisions of open requests to the buyer, and for a sealed request
nothing per bid, only the count once the bids open."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from bids import services
from bids.choices import RequestStatus
from bids.notices import bids_opened_sweep
from notices.choices import Event
from notices.models import Notice
from tests.audit.conftest import pass_deadline
from tests.factories import BidFactory, CapacityRequestFactory, MembershipFactory

pytestmark = pytest.mark.django_db

BIDDERS = ("Northwind", "Rival Cloud")


def _mails_to(address: str) -> list[str]:
    return [m.subject for m in mail.outbox if m.to == [address]]


def _text(notice: Notice) -> str:
    return notice.subject + "\n" + notice.body


def test_an_invitation_reaches_the_invited_providers_members_only(
    buyer, provider, rival_provider, settings, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://bids.example.com"
    colleague = MembershipFactory(organization=provider.org).user
    start = (timezone.localdate() + timedelta(days=60)).replace(day=3)  # a one-digit day
    req = CapacityRequestFactory(buyer=buyer.org, reservation_start=start)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
    assert sorted(m.to[0] for m in mail.outbox) == sorted([provider.user.email, colleague.email])
    assert _mails_to(rival_provider.user.email) == []
    assert f"https://bids.example.com/requests/{req.pk}/" in mail.outbox[0].body
    notice = Notice.objects.get(recipient=provider.user)
    assert notice.event == Event.INVITATION and notice.organization == provider.org
    assert "Helix Labs invites you to bid" in notice.subject
    # Dates read as on every page: "3 Mar 2027", not "03 Mar 2027".
    assert f" {req.reservation_start:%-d %b %Y} to " in notice.body
    assert f"{req.reservation_start:%d %b}" not in notice.body


def test_an_invitation_to_a_draft_waits_for_the_publish_and_comes_once(
    buyer, provider, django_capture_on_commit_callbacks
):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
    assert mail.outbox == []  # the provider cannot see a draft
    with django_capture_on_commit_callbacks(execute=True):
        services.request_publish(capacity_request=req, user=buyer.user)
        services.request_invite(capacity_request=req, user=buyer.user, providers=[provider.org])
    assert _mails_to(provider.user.email) == [
        f"[Clusterbid] Helix Labs invites you to bid on “{req.title}”"
    ]


def test_a_later_deadline_reaches_every_invited_provider_each_for_itself(
    world, provider, rival_provider, buyer, django_capture_on_commit_callbacks
):
    later = world.request.bid_deadline + timedelta(days=3)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_update(
            capacity_request=world.request, user=buyer.user, data={"bid_deadline": later}
        )
    notices = Notice.objects.filter(event=Event.DEADLINE_CHANGED)
    assert {(n.recipient, n.organization) for n in notices} == {
        (provider.user, provider.org),
        (rival_provider.user, rival_provider.org),
    }
    assert len(_mails_to(provider.user.email)) == len(_mails_to(rival_provider.user.email)) == 1
    assert _mails_to(buyer.user.email) == []
    for notice in notices:
        assert not any(name in _text(notice) for name in BIDDERS)


def test_saving_the_same_deadline_again_sends_nothing(world, buyer):
    same = world.request.bid_deadline.replace(second=0, microsecond=0)
    services.request_update(
        capacity_request=world.request, user=buyer.user, data={"bid_deadline": same}
    )
    services.request_update(
        capacity_request=world.request, user=buyer.user, data={"title": "Renamed"}
    )
    assert not Notice.objects.filter(event=Event.DEADLINE_CHANGED).exists()


def test_an_open_requests_revision_names_the_bidder_to_the_buyer_only(world, buyer, provider):
    revision = world.bid.revisions.get()
    notice = Notice.objects.get(key=f"bid-revision:{revision.pk}")
    assert notice.recipient == buyer.user and "Northwind submitted revision 1" in notice.subject
    assert not Notice.objects.filter(recipient__in=[provider.user], event=Event.BID_SUBMITTED)


def test_a_sealed_request_names_no_bidder_before_its_bids_open_then_counts_them_once(
    buyer, buyer_colleague, provider, rival_provider, django_capture_on_commit_callbacks
):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_invite(
            capacity_request=req, user=buyer.user, providers=[provider.org, rival_provider.org]
        )
        for role in (provider, rival_provider):
            bid = BidFactory(request=req, provider=role.org)
            services.bid_submit(bid=bid, user=role.user)
        services.request_update(
            capacity_request=req,
            user=buyer.user,
            data={"bid_deadline": req.bid_deadline + timedelta(days=1)},
        )
        assert bids_opened_sweep() == 0  # still sealed
    # Nothing reached the buyer's side, and no notice anywhere names a bidder.
    assert _mails_to(buyer.user.email) == _mails_to(buyer_colleague.user.email) == []
    assert not Notice.objects.filter(organization=buyer.org).exists()
    for notice in Notice.objects.all():
        assert not any(name in _text(notice) for name in BIDDERS), _text(notice)
    # A provider's own mail says whose member it reaches, and nothing of the other bidder.
    own = {provider.user.email: "Northwind", rival_provider.user.email: "Rival Cloud"}
    for message in mail.outbox:
        others = [name for name in BIDDERS if name != own[message.to[0]]]
        assert not any(name in message.subject + message.body for name in others)

    pass_deadline(req)
    with django_capture_on_commit_callbacks(execute=True):
        assert bids_opened_sweep() == 2  # alice and bob
        assert bids_opened_sweep() == 0
    assert _mails_to(buyer.user.email) == [
        f"[Clusterbid] Bids opened on “{req.title}”: 2 bids received"
    ]


def test_the_sweep_command_sends_the_opening_notice(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    BidFactory(request=req, provider=provider.org)  # a draft: not counted
    pass_deadline(req)
    call_command("send_due_notices", stdout=(out := __import__("io").StringIO()))
    assert "1 bids-opened notice(s)" in out.getvalue()
    assert Notice.objects.get(recipient=buyer.user).subject.endswith("0 bids received")
    # A deadline long past is not swept again and again.
    old = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    old.bid_deadline = timezone.now() - timedelta(days=30)
    old.save(update_fields=["bid_deadline"])
    assert bids_opened_sweep() == 0


def _sealed_with_bids(world):
    req = world.request
    req.sealed = True
    req.bid_deadline = timezone.now() + timedelta(days=17)
    req.save()
    return req


def test_an_early_close_tells_every_invitee_and_the_buyer_how_many_bids_opened(
    world, buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    req = _sealed_with_bids(world)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    for member in (provider, rival_provider):
        (subject,) = _mails_to(member.user.email)
        assert subject.startswith(f"[Clusterbid] Bidding on “{req.title}” closed early")
    (opened,) = _mails_to(buyer.user.email)
    assert "2 bids received" in opened
    own = {provider.user.email: "Northwind", rival_provider.user.email: "Rival Cloud"}
    for message in mail.outbox:  # nobody learns who else bid, or at what price
        others = [n for n in BIDDERS if n != own.get(message.to[0])]
        assert not any(name in message.subject + message.body for name in others)
        assert "USD" not in message.body


def test_a_reopen_tells_every_invitee_the_new_deadline_each_time(
    world, buyer, provider, rival_provider, django_capture_on_commit_callbacks
):
    req = _sealed_with_bids(world)
    services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    mail.outbox.clear()
    for days in (20, 25):
        new = timezone.now() + timedelta(days=days)
        with django_capture_on_commit_callbacks(execute=True):
            services.request_reopen(
                capacity_request=req, user=buyer.user, bid_deadline=new, confirmed=True
            )
        if days == 20:
            services.request_close(capacity_request=req, user=buyer.user, confirmed=True)
    subjects = _mails_to(provider.user.email)
    assert len([s for s in subjects if "reopened until" in s]) == 2
    assert len([s for s in _mails_to(rival_provider.user.email) if "reopened" in s]) == 2
    assert _mails_to(buyer.user.email) == []
