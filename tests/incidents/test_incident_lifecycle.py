"""The incident's transition table, walked: every move, open and closed, S1 and S3, by every
role of each party and by an outsider; allowed or refused with a reason and its status code."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.lifecycle import Actor
from incidents.lifecycle import INCIDENT
from incidents.models import Incident
from orgs.choices import MemberRole

BUYER_ROLES = (MemberRole.REQUESTER, MemberRole.APPROVER, MemberRole.ADMIN)
PROVIDER_ROLES = (MemberRole.ENGINEER, MemberRole.APPROVER, MemberRole.ADMIN)
SHARED = {"severity_propose", "evidence", "signoff", "dispute", "attach"}
# The other party answers one party's incident (checked per incident by
# `require_answering_party`), also once it is closed; accepting or rejecting a severity change
# needs one waiting (none here: 409) and an approver or admin (a requester or engineer: 403).
ANSWERS = {"acknowledge", "dispute_incident"}
SHARED |= ANSWERS
# The record (tests/incidents/record/): either party proposes, decides (the other party: checked
# per entry by `require_other_party`) and applies changes; the provider posts the estimate.
SHARED |= {"change_propose", "change_approve", "change_decline", "change_apply"}

# What each party may do on an open incident, by severity.
OPEN_MOVES = {
    ("buyer", "S1"): SHARED | {"close"},
    ("buyer", "S3"): SHARED | {"close", "fewer_nodes"},
    ("provider", "S1"): SHARED | {"responded", "restored", "estimate"},  # never closes an S1
    ("provider", "S3"): SHARED
    | {"responded", "restored", "estimate", "close_minor", "fewer_nodes"},
}


def _incident(severity: str, *, closed: bool) -> Incident:
    return Incident(
        severity=severity,
        closed_at=datetime(2026, 12, 1, tzinfo=UTC) if closed else None,
    )


def _actors():
    for role in BUYER_ROLES:
        yield "buyer", role, Actor(user_id=1, roles={"buyer": role})
    for role in PROVIDER_ROLES:
        yield "provider", role, Actor(user_id=2, roles={"provider": role})


@pytest.mark.parametrize("severity", ["S1", "S3"])
@pytest.mark.parametrize(("party", "role", "actor"), list(_actors()))
def test_every_move_on_an_open_incident(severity, party, role, actor):
    incident = _incident(severity, closed=False)
    decisions = INCIDENT.decisions(incident, actor=actor)
    allowed = {name for name, d in decisions.items() if d.allowed}
    assert allowed == OPEN_MOVES[(party, severity)], (party, role)
    for name, decision in decisions.items():
        if not decision.allowed:
            # The other party's move is 403; closing an S1 as the provider is 409 (its state).
            assert decision.status_code in (403, 409) and decision.reason, name
    answer = decisions["severity_accept"]
    if role in (MemberRole.APPROVER, MemberRole.ADMIN):
        assert answer.status_code == 409 and "No severity change is waiting" in answer.reason
    else:
        assert answer.status_code == 403 and "Approver" in answer.reason
    if party == "provider" and severity == "S1":
        refused = decisions["close_minor"]
        assert refused.status_code == 409 and "Only the buyer confirms" in refused.reason
        assert decisions["close"].status_code == 403


@pytest.mark.parametrize("severity", ["S1", "S3"])
@pytest.mark.parametrize(("party", "role", "actor"), list(_actors()))
def test_a_closed_incident_takes_no_move(severity, party, role, actor):
    incident = _incident(severity, closed=True)
    for name, decision in INCIDENT.decisions(incident, actor=actor).items():
        if name in ANSWERS:
            assert decision.allowed, name
            continue
        assert not decision.allowed, name
        move = INCIDENT.move(name)
        mine = move.party in (party, "either") and role in move.roles
        assert decision.status_code == (409 if mine else 403), name


def test_an_outsider_may_make_no_move():
    for name, decision in INCIDENT.decisions(
        _incident("S1", closed=False), actor=Actor(user_id=3)
    ).items():
        assert not decision.allowed and decision.status_code == 403, name
