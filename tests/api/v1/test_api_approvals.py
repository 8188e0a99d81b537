"""Approval by policy over the API: ask, approve (two different people, never the asker, a
delegate for the approver who is away), decline with a reason, withdraw; the last approval
makes the move in the asker's name. Buyer members only: anyone else gets a 404."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from acceptance.models import Reservation
from audit.models import AuditEntry
from bids.choices import RequestStatus
from bids.models import ApprovalRequest, ApprovalStatus
from tests.api.v1.conftest import token_client
from tests.bids.test_approvals import approver_two, away_this_week, policy
from tests.evaluation.pages.test_award import _closed
from tests.factories import CapacityRequestFactory, InvitationFactory

__all__ = ["approver_two", "policy"]  # fixtures shared with the page's approval tests
pytestmark = pytest.mark.django_db

REASON = "The rival can deliver two weeks earlier, which the training plan needs."


def _ask(user: Any, request_id: int, body: dict[str, Any]) -> Any:
    return token_client(user).post(f"/api/v1/requests/{request_id}/approvals/", body, "json")


def _approve(user: Any, approval_id: int, body: dict[str, Any] | None = None) -> Any:
    return token_client(user).post(f"/api/v1/approvals/{approval_id}/approve/", body or {}, "json")


def test_an_award_is_asked_approved_twice_and_made_in_the_askers_name(
    world, policy, buyer_requester, buyer_approver, approver_two
):
    req = _closed(world).request
    asked = _ask(
        buyer_requester.user,
        req.pk,
        {"action": "award", "bid": world.rival_bid.pk, "justification": REASON},
    )
    assert asked.status_code == 201, asked.content
    body = asked.json()
    assert (body["action"], body["bid"], body["needed"], body["status"]) == (
        "award",
        world.rival_bid.pk,
        2,
        "pending",
    )
    assert body["asked_by"] == "rhea" and Decimal(body["value"]) > 90_000
    pk = body["id"]

    own = _approve(buyer_requester.user, pk)
    assert own.status_code == 409 and "different person" in own.json()["detail"]
    first = _approve(buyer_approver.user, pk)
    assert first.status_code == 200 and first.json()["done"] is False
    assert [a["approver"] for a in first.json()["approval"]["approvals"]] == ["abel"]
    again = _approve(buyer_approver.user, pk)
    assert again.status_code == 409 and "already approved" in again.json()["detail"]
    assert not Reservation.objects.filter(request=req).exists()

    second = _approve(approver_two, pk)
    assert second.status_code == 200 and second.json()["done"] is True
    assert second.json()["approval"]["status"] == "done"
    reservation = Reservation.objects.get(request=req)
    assert reservation.bid_id == world.rival_bid.pk
    assert reservation.awarded_by == buyer_requester.user
    listed = token_client(buyer_approver.user).get(f"/api/v1/requests/{req.pk}/approvals/")
    (row,) = listed.json()["results"]
    assert [a["approver"] for a in row["approvals"]] == ["abel", "vera"]
    given = AuditEntry.objects.filter(action="request.approval.give")
    assert [e.after["approved_by"] for e in given.order_by("seq")] == ["abel", "vera"]


def test_a_refused_award_is_refused_before_anyone_is_asked(world, policy, buyer_requester):
    from tests.evaluation.pages.conftest import score

    req = _closed(world).request
    score(req)
    bare = _ask(buyer_requester.user, req.pk, {"action": "award", "bid": world.rival_bid.pk})
    assert bare.status_code == 400 and "justification" in bare.json()["errors"]
    nameless = _ask(buyer_requester.user, req.pk, {"action": "award"})
    assert nameless.status_code == 400 and "bid" in nameless.json()["errors"]
    assert not ApprovalRequest.objects.exists()


def test_publishing_is_asked_and_the_approval_publishes(
    buyer, buyer_colleague, buyer_approver, provider, policy
):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, budget_usd=2_000_000
    )
    InvitationFactory(request=req, provider=provider.org)
    asked = _ask(buyer_colleague.user, req.pk, {"action": "publish"})
    assert asked.status_code == 201, asked.content
    twice = _ask(buyer_colleague.user, req.pk, {"action": "publish"})
    assert twice.status_code == 409 and "already under way" in twice.json()["detail"]
    done = _approve(buyer_approver.user, asked.json()["id"])
    assert done.status_code == 200 and done.json()["done"] is True
    req.refresh_from_db()
    assert req.status == RequestStatus.OPEN


def test_a_move_the_policy_lets_through_needs_no_approval(buyer, provider, policy):
    req = CapacityRequestFactory(
        buyer=buyer.org, status=RequestStatus.DRAFT, published_at=None, budget_usd=200_000
    )
    InvitationFactory(request=req, provider=provider.org)
    answer = _ask(buyer.user, req.pk, {"action": "publish"})
    assert answer.status_code == 409 and "needs no approver" in answer.json()["detail"]


def test_a_decline_needs_a_reason_and_a_withdrawal_is_the_askers(
    world, policy, buyer, buyer_requester, buyer_approver, approver_two
):
    req = _closed(world).request
    pk = _ask(buyer_requester.user, req.pk, {"action": "award", "bid": world.bid.pk}).json()["id"]
    url = f"/api/v1/approvals/{pk}/decline/"
    bare = token_client(buyer_approver.user).post(url, {"reason": " "}, "json")
    assert bare.status_code == 400 and "reason" in bare.json()["errors"]
    # Another approver is not the asker: only the asker or an administrator withdraws.
    other = token_client(approver_two).post(f"/api/v1/approvals/{pk}/withdraw/")
    assert other.status_code == 409
    declined = token_client(buyer_approver.user).post(
        url, {"reason": "The budget for this quarter is already spent."}, "json"
    )
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert declined.json()["decline_reason"].startswith("The budget")

    pk = _ask(buyer_requester.user, req.pk, {"action": "award", "bid": world.bid.pk}).json()["id"]
    withdrawn = token_client(buyer.user).post(f"/api/v1/approvals/{pk}/withdraw/")  # an admin
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    actions = AuditEntry.objects.filter(action__startswith="request.approval")
    assert list(actions.values_list("action", flat=True)) == [
        "request.approval.ask",
        "request.approval.decline",
        "request.approval.ask",
        "request.approval.withdraw",
    ]


def test_a_delegate_approves_for_the_approver_who_is_away(
    world, policy, buyer, buyer_requester, buyer_approver, buyer_colleague, outsider
):
    away_this_week(buyer.org, approver=buyer_approver.user, delegate=buyer_requester.user)
    req = _closed(world).request
    pk = _ask(buyer_colleague.user, req.pk, {"action": "award", "bid": world.bid.pk}).json()["id"]
    stranger = _approve(buyer_requester.user, pk, {"on_behalf_of": outsider.user.pk})
    assert stranger.status_code == 400
    assert "No member of Helix Labs" in stranger.json()["errors"]["on_behalf_of"][0]
    done = _approve(buyer_requester.user, pk, {"on_behalf_of": buyer_approver.user.pk})
    assert done.status_code == 200 and done.json()["done"] is True
    (given,) = done.json()["approval"]["approvals"]
    assert (given["approver"], given["on_behalf_of"]) == ("rhea", "abel")


def test_approvals_are_the_buyers_alone(world, policy, buyer, provider, outsider, buyer_approver):
    req = _closed(world).request
    pk = _ask(buyer.user, req.pk, {"action": "award", "bid": world.bid.pk}).json()["id"]
    for user in (provider.user, outsider.user):
        client = token_client(user)
        assert client.get(f"/api/v1/requests/{req.pk}/approvals/").status_code == 404
        assert client.post(f"/api/v1/requests/{req.pk}/approvals/", {}, "json").status_code == 404
        for move in ("approve", "decline", "withdraw"):
            assert client.post(f"/api/v1/approvals/{pk}/{move}/", {}, "json").status_code == 404
    assert ApprovalRequest.objects.get(pk=pk).status == ApprovalStatus.PENDING
