"""A pilot's lifecycle: the buyer invites a shortlisted bid; while the request is undecided either
party runs the pilot and uploads its evidence (the provider's engineers their probes, the
buyer its application run); the award or a cancellation closes it.

The table is judged on the bid (a pilot exists only once invited), so the invitation and the
evidence moves read from one place who may make them and when.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from acceptance.models import Pilot
from bids.choices import BidStatus, RequestStatus
from bids.lifecycle import BUYER_TEAM, PROVIDER_TEAM, ROLE_LABELS
from bids.models import Bid
from core.lifecycle import Actor, Decision, Lifecycle, Move
from orgs.selectors import actor_for

NOT_INVITED = "not_invited"
OPEN = "open"
CLOSED = "closed"
STATUS_LABELS = {
    NOT_INVITED: "not invited to a pilot",
    OPEN: "open",
    CLOSED: "closed by the request's award or cancellation",
}
DECIDED = frozenset({RequestStatus.AWARDED, RequestStatus.CANCELLED})


@dataclass(frozen=True)
class PilotCase:
    bid: Bid
    pilot: Pilot | None = None


def _status(case: PilotCase) -> str:
    if case.bid.request.status in DECIDED:
        return CLOSED
    return NOT_INVITED if case.pilot is None else OPEN


def _invitable(case: PilotCase) -> str | None:
    bid = case.bid
    if bid.request.bids_hidden_from_buyer:
        return "The bids are sealed: invite to a pilot once they open."
    if bid.status != BidStatus.SUBMITTED or not bid.shortlisted:
        return "Only a shortlisted, submitted bid can be invited to a pilot."
    return None


PILOT: Lifecycle[PilotCase] = Lifecycle(
    name="pilot",
    status_of=_status,
    status_label=lambda c: STATUS_LABELS[_status(c)],
    role_labels=ROLE_LABELS,
    moves=[
        Move("invite", "Invite to a pilot", "buyer", BUYER_TEAM, frozenset({NOT_INVITED}),
             guard=_invitable, verb="invited again"),
        Move("evidence", "Upload, retry or withdraw pilot evidence", "either",
             BUYER_TEAM | PROVIDER_TEAM, frozenset({OPEN}), verb="given new evidence"),
    ],
)  # fmt: skip


def pilot_actor(bid: Bid, user: Any) -> Actor:
    return actor_for(
        user=user, parties={"buyer": bid.request.buyer_id, "provider": bid.provider_id}
    )


def pilot_move(case: PilotCase, name: str, *, user: Any) -> Decision[PilotCase]:
    """Raise `MoveRefused` unless `user` may make this move on the bid's pilot now."""
    return PILOT.allow(case, name, actor=pilot_actor(case.bid, user))


def pilot_decisions(case: PilotCase, *, user: Any) -> dict[str, Decision[PilotCase]]:
    return PILOT.decisions(case, actor=pilot_actor(case.bid, user))
