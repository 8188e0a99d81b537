from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.utils import timezone

from bids import services
from bids.choices import BidStatus, RequestStatus
from bids.models import BidRevision
from bids.models.bids import FrozenRevisionError
from notices.models import Notice
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory


@pytest.fixture
def open_request(buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org)
    InvitationFactory(request=req, provider=provider.org)
    return req


def test_starting_a_bid_prefills_the_requested_shape(open_request, provider):
    bid = services.bid_start(
        capacity_request=open_request, provider=provider.org, user=provider.user
    )
    assert (bid.gpu_model, bid.nodes, bid.gpus_per_node) == ("H200", 2, 8)
    assert bid.status == BidStatus.DRAFT
    assert (
        services.bid_start(capacity_request=open_request, provider=provider.org, user=provider.user)
        == bid
    )


def test_an_uninvited_provider_cannot_bid(open_request, rival_provider):
    with pytest.raises(ValidationError, match="not invited"):
        services.bid_start(
            capacity_request=open_request, provider=rival_provider.org, user=rival_provider.user
        )


def test_submitting_freezes_a_revision_and_mails_each_buyer_member_once(
    open_request, provider, buyer, buyer_colleague, django_capture_on_commit_callbacks
):
    bid = BidFactory(request=open_request, provider=provider.org)
    with django_capture_on_commit_callbacks(execute=True):
        revision = services.bid_submit(bid=bid, user=provider.user)
    bid.refresh_from_db()
    assert revision.number == 1 and bid.latest_revision_number == 1
    assert bid.status == BidStatus.SUBMITTED
    assert revision.price_per_gpu_hour == Decimal("2.400")
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com"]
    assert all(provider.org.name in m.subject for m in mail.outbox)


def test_a_sealed_request_sends_no_notice_per_bid(
    buyer, provider, django_capture_on_commit_callbacks
):
    # Issue 21: even an anonymous "a sealed bid arrived" lets the buyer count and time bids.
    req = CapacityRequestFactory(buyer=buyer.org, sealed=True)
    bid = BidFactory(request=req, provider=provider.org)
    with django_capture_on_commit_callbacks(execute=True):
        services.bid_submit(bid=bid, user=provider.user)
    assert mail.outbox == []
    assert not Notice.objects.filter(recipient=buyer.user).exists()


def test_submitting_after_the_deadline_is_refused_with_the_date(open_request, provider):
    bid = BidFactory(request=open_request, provider=provider.org)
    open_request.bid_deadline = timezone.now() - timedelta(minutes=1)
    open_request.save()
    with pytest.raises(ValidationError, match="bid deadline passed on"):
        services.bid_submit(bid=bid, user=provider.user)
    assert not BidRevision.objects.exists()


def test_submitting_to_a_closed_request_is_refused(open_request, buyer, provider):
    bid = BidFactory(request=open_request, provider=provider.org)
    services.request_close(capacity_request=open_request, user=buyer.user, confirmed=True)
    with pytest.raises(ValidationError, match="no longer takes bids"):
        services.bid_submit(bid=bid, user=provider.user)


def test_an_incomplete_draft_can_be_saved_but_not_submitted(open_request, provider):
    bid = services.bid_start(
        capacity_request=open_request, provider=provider.org, user=provider.user
    )
    services.bid_save_draft(bid=bid, user=provider.user, data={"site": "Oslo"})
    with pytest.raises(ValidationError) as exc:
        services.bid_submit(bid=bid, user=provider.user)
    assert set(exc.value.message_dict) >= {"price_per_gpu_hour", "region"}


def test_draft_validation_names_the_field(open_request, provider):
    bid = BidFactory(request=open_request, provider=provider.org)
    with pytest.raises(ValidationError) as exc:
        services.bid_save_draft(
            bid=bid, user=provider.user, data={"spares_count": 2, "spares_location": "none"}
        )
    assert "spares_location" in exc.value.message_dict


def test_a_bid_of_zero_nodes_is_refused_on_the_field(open_request, provider):
    bid = BidFactory(request=open_request, provider=provider.org)
    with pytest.raises(ValidationError) as exc:
        services.bid_save_draft(bid=bid, user=provider.user, data={"nodes": 0})
    assert exc.value.message_dict == {"nodes": ["Nodes must be at least 1."]}


def test_revising_adds_revisions_and_never_changes_earlier_ones(open_request, provider):
    bid = BidFactory(request=open_request, provider=provider.org)
    services.bid_submit(bid=bid, user=provider.user)
    with pytest.raises(ValidationError, match="already holds these terms"):
        services.bid_submit(bid=bid, user=provider.user)
    services.bid_save_draft(
        bid=bid, user=provider.user, data={"price_per_gpu_hour": Decimal("2.2")}
    )
    second = services.bid_submit(bid=bid, user=provider.user)
    first = bid.revisions.get(number=1)
    assert second.number == 2
    assert first.price_per_gpu_hour == Decimal("2.400")
    assert second.price_per_gpu_hour == Decimal("2.200")


def test_saving_unchanged_terms_leaves_nothing_to_submit(open_request, provider):
    bid = BidFactory(request=open_request, provider=provider.org)
    services.bid_submit(bid=bid, user=provider.user)
    services.bid_save_draft(bid=bid, user=provider.user, data=bid.terms_dict())
    with pytest.raises(ValidationError, match="Revision 1 already holds these terms"):
        services.bid_submit(bid=bid, user=provider.user)
    assert bid.revisions.count() == 1


def test_a_frozen_revision_cannot_be_changed_or_deleted_through_the_orm(world):
    revision = world.bid.revisions.get()
    revision.price_per_gpu_hour = Decimal("0.5")
    with pytest.raises(FrozenRevisionError):
        revision.save()
    with pytest.raises(FrozenRevisionError):
        BidRevision.objects.filter(pk=revision.pk).update(price_per_gpu_hour=Decimal("0.5"))
    with pytest.raises(FrozenRevisionError):
        revision.delete()
    with pytest.raises(FrozenRevisionError):
        BidRevision.objects.all().delete()
    assert BidRevision.objects.get(pk=revision.pk).price_per_gpu_hour == Decimal("2.400")


def test_withdraw_then_resubmit_before_the_deadline(world, provider):
    services.bid_withdraw(bid=world.bid, user=provider.user)
    assert world.bid.status == BidStatus.WITHDRAWN
    with pytest.raises(ValidationError, match="withdrawn cannot be withdrawn"):
        services.bid_withdraw(bid=world.bid, user=provider.user)
    revision = services.bid_submit(bid=world.bid, user=provider.user)
    world.bid.refresh_from_db()
    assert world.bid.status == BidStatus.SUBMITTED and revision.number == 2


def test_a_cancelled_request_takes_no_more_drafts(world, buyer, provider):
    services.request_cancel(capacity_request=world.request, user=buyer.user, confirmed=True)
    assert world.request.status == RequestStatus.CANCELLED
    with pytest.raises(ValidationError, match="no longer takes bids"):
        services.bid_save_draft(bid=world.bid, user=provider.user, data={"site": "x"})


def test_a_frozen_revision_cannot_be_changed_in_the_admin(world, admin_client):
    revision = world.bid.revisions.get()
    url = f"/admin/bids/bidrevision/{revision.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and b"Save" not in page.content  # view-only
    response = admin_client.post(url, {"price_per_gpu_hour": "0.10"})
    assert response.status_code == 403
    delete = admin_client.post(f"/admin/bids/bidrevision/{revision.pk}/delete/", {"post": "yes"})
    assert delete.status_code == 403
    assert BidRevision.objects.get(pk=revision.pk).price_per_gpu_hour == Decimal("2.400")
