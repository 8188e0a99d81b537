"""The reservation's transition table, walked: every move, in every state, by every party and
role (buyer requester/approver/admin, provider engineer/approver/admin, outsider), allowed or
refused with a reason and the right status code."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from acceptance.lifecycle import RESERVATION, Case, case_for, reservation_actor
from acceptance.models import Check, ChecksState, OverrideRequest, ReservationStatus
from core.lifecycle import Actor
from orgs.choices import MemberRole
from tests.factories import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

REQUESTER_ID = 4242  # who asked for the pending override in the "awaiting" state
SHARED = {"start_run", "evidence"}
# A finding on the evidence is explained away by the buyer's approver or admin alone.
APPROVER_ONLY = {"approve_override", "decline_override", "explain_finding"}
# What each side's roles may do, by the reservation's state and the run's verdict.
BUYER_MOVES = {
    "pending, gate passes": SHARED | {"accept", "reject", "explain_finding"},
    "pending, gate fails": SHARED | {"request_override", "reject", "explain_finding"},
    "awaiting approval": SHARED
    | {"reject", "approve_override", "decline_override", "explain_finding"},
    "accepted": set(),
    "rejected": set(),
}
PROVIDER_MOVES = {
    state: SHARED if state.startswith(("pending", "awaiting")) else set() for state in BUYER_MOVES
}
ROLES = {
    "buyer requester": {"buyer": MemberRole.REQUESTER},
    "buyer approver": {"buyer": MemberRole.APPROVER},
    "buyer admin": {"buyer": MemberRole.ADMIN},
    "provider engineer": {"provider": MemberRole.ENGINEER},
    "provider approver": {"provider": MemberRole.APPROVER},
    "provider admin": {"provider": MemberRole.ADMIN},
    "outsider": {},
}
SECOND_SIGNATURE = {"approve_override", "decline_override"}


def _verdict(run: Any, *, passed: bool) -> None:
    run.evidence_version = run.checked_version = 1
    run.checks_state, run.gate_passed = ChecksState.DONE, passed
    run.gate_summary = "gate passed" if passed else "gate failed: 1 of 1 mandatory checks block"
    run.save()
    Check.objects.create(
        run=run, version=1, position=0, name="gpu-query: GPU model", group="gpu-query",
        status="pass" if passed else "fail", measured="H100", expected="H200", node="gpu-a01",
    )  # fmt: skip


def _case(awarded: Any, state: str) -> Case:
    reservation, run = awarded.reservation, awarded.run
    _verdict(run, passed=state == "pending, gate passes")
    if state == "awaiting approval":
        requester = UserFactory(id=REQUESTER_ID)
        OverrideRequest.objects.create(
            reservation=reservation, run=run, reason="Agreed with the provider in writing.",
            waived=[{"code": "gpu-query-gpu-model@gpu-a01"}], evidence_version=1,
            requested_by=requester, requested_at=timezone.now(),
        )  # fmt: skip
    if state in ("accepted", "rejected"):
        reservation.status = ReservationStatus(state)
        reservation.save()
    return case_for(reservation, run)


def _expected(state: str, who: str) -> set[str]:
    if who.startswith("buyer"):
        allowed = set(BUYER_MOVES[state])
        if who == "buyer requester":
            allowed -= APPROVER_ONLY
        return allowed
    if who.startswith("provider"):
        return set(PROVIDER_MOVES[state])
    return set()


def _refused_with(who: str, name: str) -> int:
    """403: not your party or role; 409: your move, but not in this state."""
    if who == "outsider":
        return 403
    if name in SHARED:
        return 409
    if who.startswith("provider"):
        return 403
    if name in APPROVER_ONLY and who == "buyer requester":
        return 403
    return 409


@pytest.mark.parametrize("state", list(BUYER_MOVES))
def test_every_move_for_every_role_in_every_state(awarded, state: str) -> None:
    case = _case(awarded, state)
    for who, roles in ROLES.items():
        decisions = RESERVATION.decisions(case, actor=Actor(user_id=1, roles=roles))
        allowed = {name for name, d in decisions.items() if d.allowed}
        assert allowed == _expected(state, who), f"{who} in {state}"
        for name, decision in decisions.items():
            if decision.allowed:
                continue
            assert decision.reason, (who, name)
            assert decision.status_code == _refused_with(who, name), (who, name, decision.reason)


@pytest.mark.parametrize("role", [MemberRole.APPROVER, MemberRole.ADMIN])
def test_the_requester_never_approves_their_own_override(awarded, role: str) -> None:
    case = _case(awarded, "awaiting approval")
    actor = Actor(user_id=REQUESTER_ID, roles={"buyer": role})
    for name in SECOND_SIGNATURE:
        decision = RESERVATION.decide(case, name, actor=actor)
        assert not decision.allowed and decision.status_code == 403
        assert "You asked for this override: a second person" in decision.reason


def test_a_requester_is_told_which_roles_approve(awarded) -> None:
    case = _case(awarded, "awaiting approval")
    actor = Actor(user_id=1, roles={"buyer": MemberRole.REQUESTER})
    decision = RESERVATION.decide(case, "approve_override", actor=actor)
    assert decision.why == "role"
    assert decision.reason == (
        "Approve the override needs the role Administrator or Approver; yours is Requester."
    )


def test_a_pending_override_blocks_a_second_one(awarded) -> None:
    case = _case(awarded, "awaiting approval")
    decision = RESERVATION.decide(
        case, "request_override", actor=Actor(user_id=1, roles={"buyer": MemberRole.ADMIN})
    )
    assert decision.status_code == 409
    assert decision.reason == (
        "A reservation that is awaiting a second approver cannot be sent for an override."
    )


def test_accept_and_override_name_the_verdict_they_wait_for(awarded) -> None:
    case = case_for(awarded.reservation, awarded.run)  # no evidence yet: no verdict
    buyer = Actor(user_id=1, roles={"buyer": MemberRole.ADMIN})
    for name in ("accept", "request_override"):
        decision = RESERVATION.decide(case, name, actor=buyer)
        assert decision.status_code == 409 and "not up to date" in decision.reason
    failing = _case(awarded, "pending, gate fails")
    refused = RESERVATION.decide(failing, "accept", actor=buyer)
    assert "ask for an override" in refused.reason


def test_actors_come_from_memberships(awarded, buyer, provider) -> None:
    reservation = awarded.reservation
    assert reservation_actor(reservation, buyer.user).roles == {"buyer": MemberRole.ADMIN}
    assert reservation_actor(reservation, provider.user).roles == {"provider": MemberRole.ADMIN}
    both = UserFactory()
    MembershipFactory(user=both, organization=buyer.org, role=MemberRole.REQUESTER)
    assert reservation_actor(reservation, both).roles == {"buyer": MemberRole.REQUESTER}
