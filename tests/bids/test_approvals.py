"""Approval by policy: over the buyer's thresholds, publishing and awarding wait for one or two
approvers, each a different person and never the asker; a delegate approves for an approver
who is away, and the record says so; the gate holds for every path, the API included."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from acceptance.models import Reservation
from audit.models import AuditEntry
from bids.approval_selectors import approval_words
from bids.choices import BidStatus, RequestStatus
from bids.models import ApprovalAction, ApprovalPolicy, ApprovalStatus
from bids.services import request_publish
from bids.services.approval_policy import delegation_add, policy_update
from bids.services.approvals import approval_ask, move_value, principals_for
from core.errors import Conflict
from evaluation.approvals import approve, award_or_ask
from evaluation.debrief import award_with_debrief
from orgs.choices import MemberRole
from tests.api.v1.conftest import token_client
from tests.evaluation.pages.test_award import _closed
from tests.factories import CapacityRequestFactory, InvitationFactory, MembershipFactory

pytestmark = pytest.mark.django_db

REASON = "The rival can deliver two weeks earlier, which the training plan needs."


@pytest.fixture
def policy(buyer_org):
    """One approver for awards over $50,000, two over $90,000; one to publish over $1m."""
    return ApprovalPolicy.objects.create(
        organization=buyer_org,
        award_one_over=Decimal(50_000),
        award_two_over=Decimal(90_000),
        publish_one_over=Decimal(1_000_000),
    )


@pytest.fixture
def approver_two(buyer_org):
    user = MembershipFactory(
        organization=buyer_org, role=MemberRole.APPROVER, user__username="vera"
    ).user
    return user


def away_this_week(organization, *, approver, delegate):
    """The approver is away and records that `delegate` approves for them, from yesterday."""
    today = timezone.localdate()
    return delegation_add(
        organization=organization,
        user=approver,
        delegator=approver,
        delegate=delegate,
        starts_on=today - timedelta(days=1),
        ends_on=today + timedelta(days=6),
    )


def test_the_award_value_is_the_price_for_every_gpu_over_the_term_plus_fees(world):
    req, bid = world.request, world.rival_bid
    revision = bid.revisions.get(number=bid.latest_revision_number)
    hours = req.gpu_count * req.term_hours
    expected = revision.price_per_gpu_hour * hours + (revision.fees_usd or 0)
    assert move_value(capacity_request=req, action="award", bid=bid) == expected
    assert expected > Decimal(90_000)  # the rival's award needs two approvers


def test_an_award_over_the_two_approver_threshold_needs_two_different_approvers(
    world, policy, buyer_requester, buyer_approver, approver_two, buyer
):
    req = _closed(world).request
    asked = award_or_ask(
        capacity_request=req,
        bid=world.rival_bid,
        user=buyer_requester.user,
        justification=REASON,
        view="",
    )
    assert asked.needed == 2 and asked.status == ApprovalStatus.PENDING
    assert not Reservation.objects.filter(request=req).exists()

    # Nobody awards past the gate, not even an administrator on another path.
    with pytest.raises(Conflict, match="needs two approvers"):
        award_with_debrief(
            capacity_request=req, bid=world.rival_bid, user=buyer.user, justification=REASON
        )
    # The asker never approves their own request.
    assert principals_for(asked=asked, user=buyer_requester.user, today=timezone.localdate()) == []
    with pytest.raises(Conflict, match="a different person"):
        approve(asked=asked, user=buyer_requester.user, on_behalf_of=buyer_requester.user)

    first = approve(asked=asked, user=buyer_approver.user, on_behalf_of=buyer_approver.user)
    assert not first.done and first.asked.status == ApprovalStatus.PENDING
    with pytest.raises(Conflict, match="already approved"):
        approve(asked=asked, user=buyer_approver.user, on_behalf_of=buyer_approver.user)

    second = approve(asked=asked, user=approver_two, on_behalf_of=approver_two)
    assert second.done
    reservation = Reservation.objects.get(request=req)
    assert reservation.bid_id == world.rival_bid.pk
    assert reservation.awarded_by == buyer_requester.user  # in the asker's name
    assert reservation.award_justification == REASON
    asked.refresh_from_db()
    assert asked.status == ApprovalStatus.DONE
    actions = list(
        AuditEntry.objects.filter(action__startswith="request.approval").values_list(
            "action", flat=True
        )
    )
    assert actions == ["request.approval.ask", "request.approval.give", "request.approval.give"]


def test_an_award_under_the_one_approver_threshold_happens_at_once(world, buyer):
    ApprovalPolicy.objects.create(organization=world.request.buyer, award_one_over=10**7)
    req = _closed(world).request
    outcome = award_or_ask(
        capacity_request=req, bid=world.bid, user=buyer.user, justification="", view=""
    )
    assert isinstance(outcome, Reservation)
    world.rival_bid.refresh_from_db()
    assert world.rival_bid.status == BidStatus.LOST


def test_a_refused_award_is_refused_before_anyone_is_asked(world, policy, buyer_requester):
    # The rival is not ranked first: without a justification the award would be refused.
    from tests.evaluation.pages.conftest import score

    req = _closed(world).request
    score(req)
    with pytest.raises(ValidationError, match="full sentence"):
        award_or_ask(
            capacity_request=req,
            bid=world.rival_bid,
            user=buyer_requester.user,
            justification="cheaper",
            view="",
        )
    assert not req.approval_requests.exists()


def test_a_delegate_approves_for_the_approver_who_is_away_and_the_record_says_so(
    world, policy, buyer, buyer_requester, buyer_approver, buyer_colleague
):
    today = timezone.localdate()
    away_this_week(buyer.org, approver=buyer_approver.user, delegate=buyer_requester.user)
    req = _closed(world).request
    asked = approval_ask(
        capacity_request=req,
        action=ApprovalAction.AWARD,
        user=buyer_colleague.user,
        bid=world.bid,
    )
    assert asked.needed == 1
    # A requester approves nothing of their own; as the delegate, for the approver only.
    assert principals_for(asked=asked, user=buyer_requester.user, today=today) == [
        buyer_approver.user
    ]
    result = approve(asked=asked, user=buyer_requester.user, on_behalf_of=buyer_approver.user)
    assert result.done
    (approval,) = result.asked.approvals.all()
    assert approval_words(approval) == "approved by rhea for abel"
    entry = AuditEntry.objects.get(action="request.approval.give")
    assert entry.after["approved_by"] == "rhea" and entry.after["for"] == "abel"


def test_a_delegation_counts_only_between_its_dates(
    world, policy, buyer, buyer_requester, buyer_approver, buyer_colleague
):
    today = timezone.localdate()
    delegation_add(
        organization=buyer.org,
        user=buyer.user,  # an administrator records it for the approver
        delegator=buyer_approver.user,
        delegate=buyer_requester.user,
        starts_on=today + timedelta(days=3),
        ends_on=today + timedelta(days=5),
    )
    req = _closed(world).request
    asked = approval_ask(
        capacity_request=req, action="award", user=buyer_colleague.user, bid=world.bid
    )
    assert principals_for(asked=asked, user=buyer_requester.user, today=today) == []
    with pytest.raises(Conflict):
        approve(asked=asked, user=buyer_requester.user, on_behalf_of=buyer_approver.user)
    later = today + timedelta(days=4)
    assert principals_for(asked=asked, user=buyer_requester.user, today=later) == [
        buyer_approver.user
    ]


def test_only_an_approver_delegates_their_own_approvals(buyer, buyer_requester, buyer_approver):
    today = timezone.localdate()
    with pytest.raises(PermissionDenied):
        delegation_add(
            organization=buyer.org,
            user=buyer_requester.user,
            delegator=buyer_approver.user,
            delegate=buyer_requester.user,
            starts_on=today,
            ends_on=today,
        )
    with pytest.raises(ValidationError) as refused:
        delegation_add(
            organization=buyer.org,
            user=buyer.user,
            delegator=buyer_requester.user,
            delegate=buyer_approver.user,
            starts_on=today,
            ends_on=today - timedelta(days=1),
        )
    assert set(refused.value.message_dict) == {"delegator", "ends_on"}


def test_publishing_over_the_budget_threshold_or_without_a_budget_waits_for_an_approver(
    buyer, buyer_approver, buyer_colleague, provider, policy
):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)
    InvitationFactory(request=req, provider=provider.org)
    # No budget: counted as over every threshold, so leaving it empty skips nothing.
    with pytest.raises(Conflict, match="needs one approver"):
        request_publish(capacity_request=req, user=buyer.user)
    req.budget_usd = Decimal(200_000)
    req.save()
    request_publish(capacity_request=req, user=buyer.user)  # under $1m: at once
    assert req.status == RequestStatus.OPEN

    big = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, budget_usd=2_000_000
    )
    InvitationFactory(request=big, provider=provider.org)
    asked = approval_ask(capacity_request=big, action="publish", user=buyer_colleague.user)
    assert approve(asked=asked, user=buyer_approver.user, on_behalf_of=buyer_approver.user).done
    big.refresh_from_db()
    assert big.status == RequestStatus.OPEN and big.published_at is not None


def test_an_approval_lets_through_only_what_was_approved(
    world, policy, buyer, buyer_colleague, buyer_approver
):
    req = _closed(world).request
    asked = approval_ask(
        capacity_request=req, action="award", user=buyer_colleague.user, bid=world.bid
    )
    # Approved, but the award could not be made yet (say, it needed a written reason): the
    # approval stays, for this bid and value only.
    asked.approvals.create(approver=buyer_approver.user)
    asked.status = ApprovalStatus.APPROVED
    asked.save()
    with pytest.raises(Conflict, match="differs from this move"):
        award_with_debrief(
            capacity_request=req, bid=world.rival_bid, user=buyer.user, justification=REASON
        )
    award_with_debrief(capacity_request=req, bid=world.bid, user=buyer.user)
    asked.refresh_from_db()
    assert asked.status == ApprovalStatus.DONE


def test_the_api_award_is_held_by_the_gate_with_a_409(world, policy, buyer):
    req = _closed(world).request
    response = token_client(buyer.user).post(
        f"/api/v1/requests/{req.pk}/award/", {"bid": world.rival_bid.pk}, format="json"
    )
    assert response.status_code == 409
    assert "approval" in response.json()["detail"]


def test_only_an_administrator_sets_the_thresholds_and_two_is_never_below_one(
    buyer, buyer_approver
):
    with pytest.raises(PermissionDenied):
        policy_update(organization=buyer.org, user=buyer_approver.user, thresholds={})
    with pytest.raises(ValidationError) as refused:
        policy_update(
            organization=buyer.org,
            user=buyer.user,
            thresholds={"award_one_over": Decimal(10), "award_two_over": Decimal(5)},
        )
    assert "award_two_over" in refused.value.message_dict
    policy_update(organization=buyer.org, user=buyer.user, thresholds={"award_two_over": 500_000})
    assert AuditEntry.objects.filter(action="org.approval_policy").exists()


def test_the_policy_page_saves_for_an_administrator_and_reads_for_others(buyer, buyer_approver):
    url = reverse("bids:approval-policy")
    response = buyer.client().post(url, {"award_two_over": "500000", "award_one_over": "x"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Enter a number" in page and 'value="500000"' in page  # the typed value is kept
    response = buyer.client().post(url, {"award_two_over": "500000"})
    assert response.status_code == 302
    page = buyer_approver.client().get(url).content.decode()
    assert 'id="policy-read-only"' in page and "$500,000.00" in page
    assert buyer_approver.client().post(url, {"award_two_over": "1"}).status_code == 403


def test_the_budget_and_references_stay_the_buyers(world, buyer, provider):
    from bids.services import request_update

    req = world.request
    request_update(
        capacity_request=req,
        user=buyer.user,
        data={"budget_usd": Decimal("777777.00"), "po_reference": "PO-9", "title": "Renamed"},
    )
    edit = AuditEntry.objects.get(action="request.edit")
    assert edit.shared and "budget_usd" not in edit.after and edit.after["title"] == "Renamed"
    own = AuditEntry.objects.get(action="request.edit_purchasing")
    assert not own.shared and own.provider_org_id is None
    assert own.after == {"budget_usd": "777777.00", "po_reference": "PO-9"}
    url = reverse("bids:request-detail", args=[req.pk])
    assert "777,777" in buyer.client().get(url).content.decode()
    seen = provider.client().get(url).content.decode()
    assert "777,777" not in seen and "777777" not in seen and "PO-9" not in seen


def test_the_approvers_are_told_and_a_decline_with_its_reason_reaches_the_asker(
    world, policy, buyer_requester, buyer_approver, approver_two, buyer
):
    from bids.services.approvals import approval_decline
    from notices.choices import Event
    from notices.models import Notice

    req = _closed(world).request
    asked = approval_ask(
        capacity_request=req, action="award", user=buyer_requester.user, bid=world.rival_bid
    )
    told = set(
        Notice.objects.filter(event=Event.APPROVAL).values_list("recipient__username", flat=True)
    )
    assert told == {"abel", "vera", "alice"}  # approvers and administrators, not the asker
    with pytest.raises(ValidationError, match="full sentence"):
        approval_decline(asked=asked, user=buyer_approver.user, reason="no")
    approval_decline(
        asked=asked,
        user=buyer_approver.user,
        reason="The budget for this quarter is already committed to the training cluster.",
    )
    asked.refresh_from_db()
    assert asked.status == ApprovalStatus.DECLINED
    notice = Notice.objects.get(event=Event.APPROVAL, recipient=buyer_requester.user)
    assert notice.subject.startswith("Declined") and "already committed" in notice.body
    # Declined: nothing is let through, and a new request may be asked.
    with pytest.raises(Conflict):
        award_with_debrief(capacity_request=req, bid=world.rival_bid, user=buyer.user)
    assert (
        approval_ask(
            capacity_request=req, action="award", user=buyer_requester.user, bid=world.rival_bid
        ).status
        == ApprovalStatus.PENDING
    )


def test_the_api_publish_over_the_threshold_is_a_409_and_publishes_nothing(buyer, provider, policy):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None)
    InvitationFactory(request=req, provider=provider.org)
    response = token_client(buyer.user).post(f"/api/v1/requests/{req.pk}/publish/")
    assert response.status_code == 409, response.content
    assert "needs one approver" in response.json()["detail"]
    req.refresh_from_db()
    assert req.status == RequestStatus.DRAFT


def test_a_stricter_policy_after_the_approval_asks_again(
    world, policy, buyer, buyer_colleague, buyer_approver
):
    req = _closed(world).request
    asked = approval_ask(
        capacity_request=req, action="award", user=buyer_colleague.user, bid=world.bid
    )
    assert approve(asked=asked, user=buyer_approver.user, on_behalf_of=buyer_approver.user).done
    assert Reservation.objects.filter(request=req).exists()

    other = CapacityRequestFactory(buyer=buyer.org, budget_usd=2_000_000, published_at=None,
                                   status=RequestStatus.DRAFT)  # fmt: skip
    InvitationFactory(request=other, provider=world.bid.provider)
    asked = approval_ask(capacity_request=other, action="publish", user=buyer_colleague.user)
    asked.approvals.create(approver=buyer_approver.user)
    asked.status = ApprovalStatus.APPROVED
    asked.save()
    ApprovalPolicy.objects.filter(pk=policy.pk).update(publish_two_over=1_500_000)
    with pytest.raises(Conflict, match="more approvers"):
        request_publish(capacity_request=other, user=buyer.user)


def test_the_publish_button_says_it_asks_and_the_page_records_the_request(
    buyer, buyer_colleague, provider, policy
):
    req = CapacityRequestFactory(buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None,
                                 budget_usd=2_000_000)  # fmt: skip
    InvitationFactory(request=req, provider=provider.org)
    url = reverse("bids:request-detail", args=[req.pk])
    assert "Ask for approval to publish" in buyer.client().get(url).content.decode()
    response = buyer.client().post(reverse("bids:request-publish", args=[req.pk]), follow=True)
    page = response.content.decode()
    assert "Publishing needs one approver" in page and 'id="approvals"' in page
    req.refresh_from_db()
    assert req.status == RequestStatus.DRAFT
    # Asked already: asking again is refused with the reason, nothing new recorded.
    again = buyer_colleague.client().post(
        reverse("bids:request-publish", args=[req.pk]), follow=True
    )
    assert "already under way" in again.content.decode()
    assert req.approval_requests.count() == 1


def test_the_page_approves_for_nobody_outside_the_buyer(
    world, policy, buyer_colleague, buyer_approver, outsider
):
    """A tampered form naming someone of another organisation approves nothing, rather than
    counting the approval as the approver's own."""
    req = _closed(world).request
    asked = approval_ask(
        capacity_request=req, action="award", user=buyer_colleague.user, bid=world.bid
    )
    url = reverse("evaluation:approval-approve", args=[asked.pk])
    page = buyer_approver.client().post(url, {"on_behalf_of": str(outsider.user.pk)}, follow=True)
    assert "Choose whom you approve for" in page.content.decode()
    asked.refresh_from_db()
    assert asked.status == ApprovalStatus.PENDING and not asked.approvals.exists()
    assert buyer_approver.client().post(url).status_code == 302  # as themselves: approved
    asked.refresh_from_db()
    assert asked.status == ApprovalStatus.DONE
