"""The request's and the bid's transition tables, walked: every move, from every state, by every
party and role, allowed or refused with a reason and the right status code."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bids.choices import BidStatus, RequestStatus
from bids.lifecycle import BID, REQUEST, bid_actor, request_actor
from core.lifecycle import Actor, MoveRefused, Need
from orgs.choices import MemberRole
from tests.factories import (
    BidFactory,
    CapacityRequestFactory,
    InvitationFactory,
    MembershipFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

# What a buyer may do with a request, by its state (deadline in the future, not sealed).
REQUEST_MOVES = {
    RequestStatus.DRAFT: {
        "edit",
        "prepare",
        "lots",
        "gate",
        "publish",
        "invite",
        "uninvite",
        "cancel",
    },
    RequestStatus.OPEN: {
        "edit",
        "prepare",
        "invite",
        "uninvite",
        "close",
        "addendum",
        "answer",
        "cancel",
        "evaluate",
    },
    RequestStatus.CLOSED: {"reopen", "final_round", "cancel", "award", "answer", "evaluate"},
    RequestStatus.AWARDED: set(),
    RequestStatus.CANCELLED: set(),
}
# What an invited provider may do on the request itself (questions, acknowledgements, and
# its administrator's acceptance of the request's gate).
INVITEE_MOVES = {"ask", "acknowledge", "accept_gate"}
# What a provider may do with its bid on an open request, by the bid's state.
BID_MOVES = {
    BidStatus.DRAFT: {"edit", "submit"},
    BidStatus.SUBMITTED: {"edit", "withdraw"},  # a submit needs unsubmitted changes
    BidStatus.WITHDRAWN: {"edit", "submit"},
    BidStatus.AWARDED: set(),
    BidStatus.LOST: set(),
}
EVERYDAY = {
    "buyer": (MemberRole.REQUESTER, MemberRole.APPROVER, MemberRole.ADMIN),
    "provider": (MemberRole.ENGINEER, MemberRole.APPROVER, MemberRole.ADMIN),
}


@pytest.mark.parametrize("status", list(REQUEST_MOVES))
@pytest.mark.parametrize("role", EVERYDAY["buyer"])
def test_every_request_move_from_every_state(status: str, role: str) -> None:
    req = CapacityRequestFactory(status=status)
    InvitationFactory(request=req)
    actor = Actor(user_id=1, roles={"buyer": role})
    allowed = {name for name, d in REQUEST.decisions(req, actor=actor).items() if d.allowed}
    # An approver is the second signature: it does not answer invitees' questions.
    by_role = {"answer"} if role == MemberRole.APPROVER else set()
    assert allowed == REQUEST_MOVES[status] - by_role
    for name, decision in REQUEST.decisions(req, actor=actor).items():
        if not decision.allowed:
            # The invitee's moves, and a role's refusal, are 403; a state's 409.
            refused_by_role = name in INVITEE_MOVES or (name in by_role and decision.why == "role")
            expected = 403 if refused_by_role else 409
            assert decision.status_code == expected and decision.reason, name


def test_a_request_nobody_is_invited_to_cannot_be_published() -> None:
    req = CapacityRequestFactory(status=RequestStatus.DRAFT)
    actor = Actor(user_id=1, roles={"buyer": MemberRole.REQUESTER})
    decision = REQUEST.decide(req, "publish", actor=actor)
    assert not decision.allowed and decision.status_code == 409
    assert decision.reason.startswith("Invite at least one provider before publishing")
    InvitationFactory(request=req)
    assert REQUEST.decide(req, "publish", actor=actor).allowed


@pytest.mark.parametrize("status", list(BID_MOVES))
def test_every_bid_move_from_every_state(status: str) -> None:
    bid = BidFactory.build(
        status=status, request=CapacityRequestFactory.build(), has_unsubmitted_changes=False
    )
    actor = Actor(user_id=1, roles={"provider": MemberRole.ENGINEER})
    allowed = {name for name, d in BID.decisions(bid, actor=actor).items() if d.allowed}
    assert allowed == BID_MOVES[status]


@pytest.mark.parametrize("roles", [{}, {"provider": MemberRole.ADMIN}, {"buyer": "engineer"}])
def test_the_other_party_and_outsiders_make_no_request_move(roles: dict[str, str]) -> None:
    req = CapacityRequestFactory.build(status=RequestStatus.OPEN)
    for name, decision in REQUEST.decisions(req, actor=Actor(user_id=1, roles=roles)).items():
        if name in INVITEE_MOVES and "provider" in roles:
            assert decision.allowed, name  # an invitee asks and acknowledges, nothing else
            continue
        assert not decision.allowed and decision.status_code == 403, name


def test_the_buyer_makes_no_move_on_a_providers_bid() -> None:
    bid = BidFactory.build(status=BidStatus.DRAFT, request=CapacityRequestFactory.build())
    actor = Actor(user_id=1, roles={"buyer": MemberRole.ADMIN})
    decisions = BID.decisions(bid, actor=actor)
    assert all(not d.allowed and d.why == "party" for d in decisions.values())
    assert decisions["submit"].reason == "Only the provider can do this: Submit."


def test_a_refusal_by_role_names_the_roles_that_may() -> None:
    req = CapacityRequestFactory.build(status=RequestStatus.OPEN)
    decision = REQUEST.decide(req, "close", actor=Actor(user_id=1, roles={"buyer": "engineer"}))
    assert decision.why == "role" and decision.status_code == 403
    assert "Administrator or Approver or Requester" in decision.reason


def test_past_the_deadline_an_open_request_can_be_awarded_but_a_bid_not_revised() -> None:
    req = CapacityRequestFactory.build(
        status=RequestStatus.OPEN, bid_deadline=timezone.now() - timedelta(minutes=1)
    )
    buyer = Actor(user_id=1, roles={"buyer": MemberRole.REQUESTER})
    assert REQUEST.decide(req, "award", actor=buyer).allowed
    bid = BidFactory.build(status=BidStatus.SUBMITTED, request=req)
    refused = BID.decide(bid, "edit", actor=Actor(user_id=2, roles={"provider": "engineer"}))
    assert not refused.allowed and "bid deadline passed" in refused.reason


def test_a_sealed_request_is_not_awarded_before_its_deadline() -> None:
    req = CapacityRequestFactory.build(status=RequestStatus.CLOSED, sealed=True)
    decision = REQUEST.decide(req, "award", actor=Actor(user_id=1, roles={"buyer": "admin"}))
    assert not decision.allowed and "sealed until its deadline" in decision.reason


# The moves a buyer confirms explicitly; without the confirmation they are refused with 400.
CONFIRMED = {"close", "reopen", "final_round", "cancel", "addendum"}


def test_the_table_names_the_moves_that_need_a_confirmation() -> None:
    assert {m.name for m in REQUEST.moves if Need.CONFIRM in m.needs} == CONFIRMED


@pytest.mark.parametrize("status", list(REQUEST_MOVES))
@pytest.mark.parametrize("name", sorted(CONFIRMED))
def test_a_move_needing_confirmation_is_refused_without_it(status: str, name: str) -> None:
    req = CapacityRequestFactory.build(status=status)
    actor = Actor(user_id=1, roles={"buyer": MemberRole.REQUESTER})
    if name not in REQUEST_MOVES[status]:
        # Not possible in this state: the state says so first (409), confirmed or not.
        with pytest.raises(MoveRefused) as refused:
            REQUEST.require(req, name, actor=actor, confirmed=True)
        assert refused.value.status_code == 409
        return
    with pytest.raises(MoveRefused) as refused:
        REQUEST.require(req, name, actor=actor)
    assert refused.value.status_code == 400 and refused.value.decision.why == "confirm"
    assert "Confirmation required" in refused.value.message_dict["confirm"][0]
    assert REQUEST.require(req, name, actor=actor, confirmed=True).allowed


def test_a_request_awarded_or_cancelled_is_not_reopened() -> None:
    buyer = Actor(user_id=1, roles={"buyer": MemberRole.ADMIN})
    for status in (RequestStatus.AWARDED, RequestStatus.CANCELLED, RequestStatus.OPEN):
        decision = REQUEST.decide(
            CapacityRequestFactory.build(status=status), "reopen", actor=buyer
        )
        assert not decision.allowed and decision.status_code == 409
        assert "cannot be reopened" in decision.reason


def test_an_early_close_opens_a_sealed_request_to_award_at_once() -> None:
    req = CapacityRequestFactory.build(status=RequestStatus.CLOSED, sealed=True)
    buyer = Actor(user_id=1, roles={"buyer": MemberRole.ADMIN})
    assert not REQUEST.decide(req, "award", actor=buyer).allowed
    req.bids_opened_at = timezone.now()
    assert not req.bids_hidden_from_buyer and REQUEST.decide(req, "award", actor=buyer).allowed


def test_drafts_freeze_when_bidding_closes() -> None:
    req = CapacityRequestFactory.build(
        status=RequestStatus.CLOSED, closed_at=timezone.now(), bids_opened_at=timezone.now()
    )
    provider = Actor(user_id=2, roles={"provider": MemberRole.ENGINEER})
    for status in (BidStatus.DRAFT, BidStatus.SUBMITTED, BidStatus.WITHDRAWN):
        bid = BidFactory.build(status=status, request=req, has_unsubmitted_changes=True)
        for name, decision in BID.decisions(bid, actor=provider).items():
            assert not decision.allowed and decision.status_code == 409, name
            if name in BID_MOVES[status]:  # the moves an open request would allow
                assert decision.reason.startswith("Bidding closed on"), decision.reason


def test_actors_come_from_memberships(buyer, provider, world) -> None:
    assert request_actor(world.request, buyer.user).roles == {"buyer": MemberRole.ADMIN}
    assert request_actor(world.request, provider.user).outsider
    both = UserFactory()
    MembershipFactory(user=both, organization=buyer.org, role=MemberRole.REQUESTER)
    MembershipFactory(user=both, organization=provider.org, role=MemberRole.ENGINEER)
    assert bid_actor(world.bid, both).roles == {"provider": "engineer", "buyer": "requester"}


def test_a_final_round_is_held_once_and_keeps_out_the_bids_not_shortlisted() -> None:
    req = CapacityRequestFactory.build(status=RequestStatus.CLOSED, round=2)
    buyer = Actor(user_id=1, roles={"buyer": MemberRole.REQUESTER})
    again = REQUEST.decide(req, "final_round", actor=buyer)
    assert not again.allowed and again.status_code == 409 and "already been held" in again.reason
    req.status = RequestStatus.OPEN
    engineer = Actor(user_id=2, roles={"provider": MemberRole.ENGINEER})
    out = BidFactory.build(status=BidStatus.SUBMITTED, request=req, has_unsubmitted_changes=True)
    assert not any(d.allowed for d in BID.decisions(out, actor=engineer).values())
    assert "does not include your bid" in BID.decide(out, "submit", actor=engineer).reason
    kept = BidFactory.build(
        status=BidStatus.SUBMITTED, request=req, shortlisted=True, has_unsubmitted_changes=True
    )
    allowed = {n for n, d in BID.decisions(kept, actor=engineer).items() if d.allowed}
    assert allowed == {"edit", "submit", "withdraw"}
