"""The incident's moves and who makes them: the provider records the response and the restore;
each recovery item is signed off by the party that owns it and may be disputed by the other;
only the buyer closes an S1 or S2 incident (either party may close an S3). A severity change
after opening is proposed by one party and accepted or rejected by an approver or admin of the
other; an incident opened by one party is acknowledged or disputed by the other."""

from __future__ import annotations

from typing import Any

from acceptance.models import Reservation, ReservationStatus
from bids.lifecycle import BUYER_TEAM, PROVIDER_TEAM, ROLE_LABELS
from core.lifecycle import Actor, Decision, Lifecycle, Move, MoveRefused, Need
from incidents.models import (
    BaselineProposal,
    BaselineProposalStatus,
    Incident,
    SeverityChange,
    SeverityChangeStatus,
)
from orgs.choices import MemberRole
from orgs.selectors import actor_for

OPEN = frozenset({"open"})
ANY_STATE = frozenset({"open", "closed"})
EITHER_TEAM = BUYER_TEAM | PROVIDER_TEAM
# The second signature on either side: a severity change moves the clocks and the credits, so
# the other party's approver or admin agrees to it (as for overrides and short-notice windows).
APPROVERS = frozenset({MemberRole.APPROVER, MemberRole.ADMIN})

# Who owns each sign-off item: the buyer watches its training (loss continuity); the provider
# watches its node (no recurrence). Items the terms add are the buyer's to accept.
SIGNOFF_OWNERS = {"loss_continuity": "buyer", "no_recurrence_hours": "provider"}


def item_owner(key: str) -> str:
    return SIGNOFF_OWNERS.get(key, "buyer")


def _minor(incident: Incident) -> str | None:
    if incident.severity in ("S1", "S2"):
        return (
            f"Only the buyer confirms that an {incident.severity} incident is over; the provider "
            "declares it restored."
        )
    return None


def pending_change(incident: Incident) -> SeverityChange | None:
    if incident.pk is None:  # a table walked on an unsaved incident: nothing proposed yet
        return None
    return (
        SeverityChange.objects.filter(incident=incident, status=SeverityChangeStatus.PENDING)
        .select_related("proposed_by")
        .first()
    )


def _none_pending(incident: Incident) -> str | None:
    change = pending_change(incident)
    if change is not None:
        return (
            f"{change.to_severity} is already proposed by the {change.proposed_party}; it waits "
            f"for the {change.other_party}'s answer first."
        )
    return None


def _one_pending(incident: Incident) -> str | None:
    if pending_change(incident) is None:
        return "No severity change is waiting for an answer."
    return None


_UNRECORDED = "The incident was opened before the opening party was recorded: it stands as is."


def _not_answered(incident: Incident) -> str | None:
    if not incident.opened_by_party and incident.pk is not None:
        return _UNRECORDED
    if incident.acknowledged_at is not None:
        return "The incident is already acknowledged."
    return None


def _disputable(incident: Incident) -> str | None:
    if not incident.opened_by_party and incident.pk is not None:
        return _UNRECORDED
    if incident.acknowledged_at is not None:
        return "The incident is acknowledged; it stands."
    if incident.disputed_at is not None:
        return "The incident is already disputed."
    return None


def _not_s3(incident: Incident) -> str | None:
    if incident.severity != "S3":
        return (
            f"A restart on fewer nodes is recorded on an S3 (one node out); this incident is "
            f"{incident.severity}."
        )
    return None


INCIDENT: Lifecycle[Incident] = Lifecycle(
    name="incident",
    status_of=lambda i: "open" if i.is_open else "closed",
    status_label=lambda i: "open" if i.is_open else "closed",
    role_labels=ROLE_LABELS,
    moves=[
        Move("responded", "Record the response", "provider", PROVIDER_TEAM, OPEN, verb="changed"),
        Move("restored", "Declare it restored", "provider", PROVIDER_TEAM, OPEN, verb="changed"),
        # The severity moves the clocks and the credits: one party proposes, the other agrees.
        Move("severity_propose", "Propose a severity change", "either", EITHER_TEAM, OPEN,
             needs=frozenset({Need.REASON}), guard=_none_pending, verb="changed"),
        Move("severity_accept", "Accept the other party's severity change", "either", APPROVERS,
             OPEN, guard=_one_pending, verb="changed"),
        Move("severity_reject", "Reject the other party's severity change", "either", APPROVERS,
             OPEN, needs=frozenset({Need.REASON}), guard=_one_pending, verb="changed"),
        # One party's incident counts once the other acknowledges it (or lets the response
        # clock run out without a dispute); closed incidents can still be answered.
        Move("acknowledge", "Acknowledge the other party's incident", "either", EITHER_TEAM,
             ANY_STATE, guard=_not_answered, verb="acknowledged"),
        Move("dispute_incident", "Dispute the other party's incident", "either", EITHER_TEAM,
             ANY_STATE, needs=frozenset({Need.REASON}), guard=_disputable, verb="disputed"),
        Move("evidence", "Upload recovery evidence", "either", EITHER_TEAM, OPEN, verb="changed"),
        Move("signoff", "Sign off an item you own", "either", EITHER_TEAM, OPEN, verb="changed"),
        Move("dispute", "Dispute the other party's sign-off", "either", EITHER_TEAM, OPEN,
             needs=frozenset({Need.REASON}), verb="changed"),
        # The record (incidents/services/record.py): a change is proposed by one party and
        # approved or declined by the other (`require_other_party`); only an approved change is
        # applied. The provider posts the repair estimate.
        Move("change_propose", "Propose a configuration change or workaround", "either",
             EITHER_TEAM, OPEN, verb="changed"),
        Move("change_approve", "Approve the other party's change", "either", EITHER_TEAM, OPEN,
             verb="changed"),
        Move("change_decline", "Decline the other party's change", "either", EITHER_TEAM, OPEN,
             needs=frozenset({Need.REASON}), verb="changed"),
        Move("change_apply", "Record an approved change as applied", "either", EITHER_TEAM, OPEN,
             verb="changed"),
        Move("estimate", "Post a repair estimate", "provider", PROVIDER_TEAM, OPEN,
             verb="changed"),
        Move("close", "Confirm closure", "buyer", BUYER_TEAM, OPEN,
             needs=frozenset({Need.CONFIRM}), verb="closed"),
        Move("close_minor", "Close the S3 incident", "provider", PROVIDER_TEAM, OPEN,
             guard=_minor, verb="closed"),
        Move("attach", "Attach a failed-run analysis", "either", EITHER_TEAM, OPEN,
             verb="given an analysis"),
        Move("fewer_nodes", "Record the restart on fewer nodes", "either", EITHER_TEAM, OPEN,
             guard=_not_s3, verb="changed"),
    ],
)  # fmt: skip

# Opening: either party, from its own signal (the provider's alert or drained node, the buyer's
# slow job, a failed run, a step-time rise), on an accepted reservation only. Both teams' roles.
OPENING: Lifecycle[Reservation] = Lifecycle(
    name="reservation",
    status_of=lambda r: r.status,
    status_label=lambda r: r.get_status_display(),
    role_labels=ROLE_LABELS,
    moves=[
        Move("open", "Open an incident", "either", EITHER_TEAM,
             frozenset({ReservationStatus.ACCEPTED}), verb="given an incident"),
    ],
)  # fmt: skip


def reservation_actor(reservation: Reservation, user: Any) -> Actor:
    return actor_for(
        user=user,
        parties={"buyer": reservation.request.buyer_id, "provider": reservation.bid.provider_id},
    )


def opening_decision(reservation: Reservation, *, user: Any) -> Decision[Reservation]:
    return OPENING.decide(reservation, "open", actor=reservation_actor(reservation, user))


def opening_party(reservation: Reservation, *, user: Any) -> str | None:
    """The party the user would open an incident as ("buyer" or "provider"), if either."""
    roles = reservation_actor(reservation, user).roles
    return "buyer" if "buyer" in roles else "provider" if "provider" in roles else None


def require_open_move(reservation: Reservation, *, user: Any) -> str:
    """Refused unless the user is on either team of an accepted reservation; returns the party
    ("buyer" or "provider") that opens."""
    actor = reservation_actor(reservation, user)
    OPENING.require(reservation, "open", actor=actor)
    return "buyer" if "buyer" in actor.roles else "provider"


def incident_actor(incident: Incident, user: Any) -> Actor:
    return reservation_actor(incident.reservation, user)


def incident_move(incident: Incident, name: str, *, user: Any) -> Decision[Incident]:
    return INCIDENT.require(incident, name, actor=incident_actor(incident, user))


def close_decision(incident: Incident, *, actor: Actor) -> Decision[Incident]:
    """The buyer's 'close', or for an S3 the provider's 'close_minor'."""
    if "buyer" in actor.roles:
        return INCIDENT.decide(incident, "close", actor=actor)
    return INCIDENT.decide(incident, "close_minor", actor=actor)


def _refuse(incident: Incident, name: str, reason: str) -> MoveRefused:
    decision: Decision[Any] = Decision(INCIDENT.move(name), False, reason, "party")
    return MoveRefused(decision)


def require_item_party(incident: Incident, key: str, *, user: Any, owner: bool) -> str:
    """The actor's party, refused unless they own the item (`owner`) or are the other party."""
    actor = incident_actor(incident, user)
    party = item_owner(key)
    mine = party in actor.roles
    if owner and not mine:
        raise _refuse(incident, "signoff", f"This item is the {party}'s to sign off.")
    if not owner and (mine or not actor.roles):
        raise _refuse(
            incident, "dispute", f"Only the other party can dispute the {party}'s sign-off."
        )
    return "buyer" if "buyer" in actor.roles else "provider"


def actor_party(incident: Incident, *, user: Any) -> str:
    """The party the user acts for on this incident ("buyer" first, as for sign-offs)."""
    roles = incident_actor(incident, user).roles
    return "buyer" if "buyer" in roles else "provider"


def other_party(party: str) -> str:
    return "buyer" if party == "provider" else "provider"


def require_answering_party(incident: Incident, name: str, *, party: str, user: Any) -> str:
    """`incident_move(name)`, then refuse anyone but the other party to `party` (who proposed,
    or who opened). Returns the answering party."""
    mine = actor_party(incident, user=user)
    # Refused to the claimant's own party first, whatever the state: the answer is never theirs.
    if mine == party and incident_actor(incident, user).roles:
        raise _refuse(
            incident,
            name,
            f"The {party} made this claim, so only the {other_party(party)} can answer it.",
        )
    incident_move(incident, name, user=user)
    return mine


def require_other_party(incident: Incident, name: str, *, proposed_party: str, user: Any) -> str:
    """`incident_move(name)`, then refuse the proposer's own party: a change is approved (or
    declined) by the other party. Returns the deciding party."""
    incident_move(incident, name, user=user)
    party = actor_party(incident, user=user)
    if party == proposed_party:
        other = "buyer" if proposed_party == "provider" else "provider"
        raise _refuse(
            incident,
            name,
            f"The {proposed_party} proposed this change, so only the {other} can "
            f"{'approve' if name == 'change_approve' else 'decline'} it.",
        )
    return party


def _no_pending_baseline(reservation: Reservation) -> str | None:
    pending = BaselineProposal.objects.filter(
        reservation=reservation, status=BaselineProposalStatus.PENDING
    ).first()
    if pending is not None:
        return (
            f"A baseline of {pending.step_time_s:g} s is already proposed; it waits for the "
            "provider's answer first."
        )
    return None


def _a_pending_baseline(reservation: Reservation) -> str | None:
    if _no_pending_baseline(reservation) is None:
        return "No baseline proposal is waiting for an answer."
    return None


_LIVE = frozenset({ReservationStatus.ACCEPTED})
# The hand-over baseline is what S2 is measured against: the buyer may propose its own job's
# step time instead, and it replaces the burn-in's only once the provider's approver or admin
# accepts it (the baseline moves the S2 threshold, hence the credits).
BASELINE: Lifecycle[Reservation] = Lifecycle(
    name="reservation",
    status_of=lambda r: r.status,
    status_label=lambda r: r.get_status_display(),
    role_labels=ROLE_LABELS,
    moves=[
        Move("baseline_propose", "Propose a baseline step time", "buyer", BUYER_TEAM, _LIVE,
             needs=frozenset({Need.REASON}), guard=_no_pending_baseline, verb="changed"),
        Move("baseline_accept", "Accept the buyer's baseline", "provider", APPROVERS, _LIVE,
             guard=_a_pending_baseline, verb="changed"),
        Move("baseline_reject", "Reject the buyer's baseline", "provider", APPROVERS, _LIVE,
             needs=frozenset({Need.REASON}), guard=_a_pending_baseline, verb="changed"),
    ],
)  # fmt: skip


def baseline_decision(reservation: Reservation, name: str, *, user: Any) -> Decision[Reservation]:
    return BASELINE.decide(reservation, name, actor=reservation_actor(reservation, user))


def require_baseline_move(reservation: Reservation, name: str, *, user: Any) -> None:
    BASELINE.require(reservation, name, actor=reservation_actor(reservation, user))
