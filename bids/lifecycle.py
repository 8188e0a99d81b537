"""The request's and the bid's lifecycles: every move, the party and roles that may make it,
the states it starts from. Services, views, the API and templates all ask these two tables
(`{% moves req as m %}{% if m.close.allowed %}` in templates) instead of comparing statuses."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from bids.choices import BidStatus, RequestStatus
from bids.models import Bid, CapacityRequest
from core.errors import Conflict
from core.lifecycle import Actor, Decision, Lifecycle, Move, MoveRefused, Need
from orgs.choices import MemberRole
from orgs.selectors import actor_for

User = AbstractBaseUser | AnonymousUser | None
ROLE_LABELS = {str(value): str(label) for value, label in MemberRole.choices}
BUYER_TEAM = frozenset({MemberRole.REQUESTER, MemberRole.APPROVER, MemberRole.ADMIN})
PROVIDER_TEAM = frozenset({MemberRole.ENGINEER, MemberRole.APPROVER, MemberRole.ADMIN})
# Who answers invitees' questions: the day-to-day roles, not the second signature.
ANSWERING = frozenset({MemberRole.REQUESTER, MemberRole.ADMIN})
PREPARING = frozenset({RequestStatus.DRAFT, RequestStatus.OPEN})


def _deadline_in_past(req: CapacityRequest) -> str | None:
    if req.deadline_passed:
        return "The bid deadline has passed; move it into the future before publishing."
    return None


def _publishable(req: CapacityRequest) -> str | None:
    """A published request nobody was invited to collects no bids, only a deadline."""
    if (reason := _deadline_in_past(req)) is not None:
        return reason
    if req.pk is None or not req.invitations.exists():
        return "Invite at least one provider before publishing: nobody else can see the request."
    return None


def _sealed_invitations(req: CapacityRequest) -> str | None:
    if req.status == RequestStatus.OPEN and req.bids_hidden_from_buyer:
        # Refused alike for every provider: 'has already started a bid' would name a bidder.
        return (
            "Invitations to a sealed request stay until its deadline: withdrawing one would "
            "show whether that provider has bid."
        )
    return None


def _not_final_round(req: CapacityRequest) -> str | None:
    if req.in_final_round:
        return "The best-and-final round is for the shortlisted bids: nobody new can join it."
    return None


def _awardable_now(req: CapacityRequest) -> str | None:
    if req.bids_hidden_from_buyer:
        return "The request is sealed until its deadline; bids cannot be awarded before then."
    if req.status == RequestStatus.OPEN and not req.deadline_passed:
        return "Bidding is still open: close it or wait for the deadline before awarding."
    return None


def _final_round_possible(req: CapacityRequest) -> str | None:
    if req.in_final_round:
        return "The best-and-final round has already been held; there is no further round."
    if req.status == RequestStatus.OPEN and not req.deadline_passed:
        return "Bidding is still open: close it or wait for the deadline before a final round."
    return None


def _bids_visible(req: CapacityRequest) -> str | None:
    if req.bids_hidden_from_buyer:
        return "The request is sealed until its deadline: there are no bids to evaluate yet."
    return None


def _bidding_open(req: CapacityRequest) -> str | None:
    if req.deadline_passed:
        return (
            "The bid deadline has passed: an addendum is for providers still bidding. Move the "
            "deadline later first."
        )
    return None


def _questions_open(req: CapacityRequest) -> str | None:
    if req.deadline_passed:
        return "The bid deadline has passed: questions are for providers still bidding."
    return None


REQUEST: Lifecycle[CapacityRequest] = Lifecycle(
    name="request",
    status_of=lambda r: r.status,
    status_label=lambda r: str(r.get_status_display()),
    role_labels=ROLE_LABELS,
    moves=[
        Move("edit", "Edit the request", "buyer", BUYER_TEAM, PREPARING, verb="edited"),
        Move(
            "prepare",
            "Change the fixture, handoff terms or questionnaire",
            "buyer",
            BUYER_TEAM,
            PREPARING,
            verb="changed",
        ),
        Move(
            "lots",
            "Change the lots",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.DRAFT}),
            verb="split into other lots: providers bid on the lots as published",
        ),
        Move(
            "gate",
            "Require an NDA or compliance documents",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.DRAFT}),
            verb="gated: invitees may already have read its details",
        ),
        Move(
            "publish",
            "Publish",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.DRAFT}),
            target=RequestStatus.OPEN,
            guard=_publishable,
            verb="published",
        ),
        Move(
            "invite",
            "Invite providers",
            "buyer",
            BUYER_TEAM,
            PREPARING,
            guard=_not_final_round,
            verb="sent invitations",
        ),
        Move(
            "uninvite",
            "Withdraw an invitation",
            "buyer",
            BUYER_TEAM,
            PREPARING,
            guard=_sealed_invitations,
            verb="changed",
        ),
        Move(
            "close",
            "Close bidding",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.OPEN}),
            target=RequestStatus.CLOSED,
            needs=frozenset({Need.CONFIRM}),
            verb="closed",
        ),
        Move(
            "reopen",
            "Reopen bidding",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.CLOSED}),
            target=RequestStatus.OPEN,
            needs=frozenset({Need.CONFIRM}),
            verb="reopened",
        ),
        Move(
            "addendum",
            "Publish an addendum",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.OPEN}),
            guard=_bidding_open,
            needs=frozenset({Need.CONFIRM}),
            verb="amended",
        ),
        # Clarifications: an invitee asks, the buyer answers, each invitee
        # acknowledges every addendum before its next submit.
        Move(
            "ask",
            "Ask a question",
            "provider",
            PROVIDER_TEAM,
            frozenset({RequestStatus.OPEN}),
            guard=_questions_open,
            verb="asked about",
        ),
        Move(
            "answer",
            "Answer a question",
            "buyer",
            ANSWERING,
            frozenset({RequestStatus.OPEN, RequestStatus.CLOSED}),
            verb="answered on",
        ),
        Move(
            "acknowledge",
            "Acknowledge an addendum",
            "provider",
            PROVIDER_TEAM,
            frozenset({RequestStatus.OPEN, RequestStatus.CLOSED}),
            verb="acknowledged on",
        ),
        # Only an administrator binds the organisation to a non-disclosure agreement.
        Move(
            "accept_gate",
            "Accept the request's terms",
            "provider",
            frozenset({MemberRole.ADMIN}),
            frozenset({RequestStatus.OPEN, RequestStatus.CLOSED}),
            verb="accepted",
        ),
        Move(
            "final_round",
            "Open a best-and-final round",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.OPEN, RequestStatus.CLOSED}),
            target=RequestStatus.OPEN,
            guard=_final_round_possible,
            needs=frozenset({Need.CONFIRM}),
            verb="sent to a final round",
        ),
        Move(
            "cancel",
            "Cancel the request",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.DRAFT, RequestStatus.OPEN, RequestStatus.CLOSED}),
            target=RequestStatus.CANCELLED,
            needs=frozenset({Need.CONFIRM}),
            verb="cancelled",
        ),
        Move(
            "evaluate",
            "Set your own weights and judge the bids",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.OPEN, RequestStatus.CLOSED}),
            guard=_bids_visible,
            verb="evaluated",
        ),
        Move(
            "award",
            "Award a bid",
            "buyer",
            BUYER_TEAM,
            frozenset({RequestStatus.OPEN, RequestStatus.CLOSED}),
            target=RequestStatus.AWARDED,
            guard=_awardable_now,
            verb="awarded",
        ),
    ],
)


def open_for_bidding(capacity_request: CapacityRequest) -> str | None:
    """Why the request takes no new bid now, or None (the rule lives on the model)."""
    return capacity_request.closed_to_new_bids_reason()


def _open_for_bidding(bid: Bid) -> str | None:
    # The request's rule and, in a best-and-final round, the shortlist (on the model).
    return bid.closed_to_bids_reason()


def _something_to_submit(bid: Bid) -> str | None:
    # Closed first: 'edit the bid first' would send a provider to an edit it may not make.
    if (closed := _open_for_bidding(bid)) is not None:
        return closed
    if bid.status == BidStatus.SUBMITTED and not bid.has_unsubmitted_changes:
        return (
            f"Revision {bid.latest_revision_number} already holds these terms; edit the bid first."
        )
    return None


REVISABLE = frozenset({BidStatus.DRAFT, BidStatus.SUBMITTED, BidStatus.WITHDRAWN})

BID: Lifecycle[Bid] = Lifecycle(
    name="bid",
    status_of=lambda b: b.status,
    status_label=lambda b: str(b.get_status_display()),
    role_labels=ROLE_LABELS,
    moves=[
        Move(
            "edit",
            "Edit the bid",
            "provider",
            PROVIDER_TEAM,
            REVISABLE,
            guard=_open_for_bidding,
            verb="edited",
        ),
        Move(
            "submit",
            "Submit",
            "provider",
            PROVIDER_TEAM,
            REVISABLE,
            target=BidStatus.SUBMITTED,
            guard=_something_to_submit,
            verb="submitted",
        ),
        Move(
            "withdraw",
            "Withdraw",
            "provider",
            PROVIDER_TEAM,
            frozenset({BidStatus.SUBMITTED}),
            target=BidStatus.WITHDRAWN,
            guard=_open_for_bidding,
            verb="withdrawn",
        ),
    ],
)


def request_actor(capacity_request: CapacityRequest, user: User) -> Actor:
    return actor_for(user=user, parties={"buyer": capacity_request.buyer_id})


def invitee_actor(
    capacity_request: CapacityRequest, user: User, *, provider_id: int | None
) -> Actor:
    """The user as a member of an invited provider (the acting organisation), or the buyer."""
    return actor_for(
        user=user, parties={"buyer": capacity_request.buyer_id, "provider": provider_id}
    )


def bid_actor(bid: Bid, user: User) -> Actor:
    return actor_for(
        user=user, parties={"provider": bid.provider_id, "buyer": bid.request.buyer_id}
    )


def request_move(
    capacity_request: CapacityRequest, name: str, *, user: User, confirmed: bool = False
) -> Decision[CapacityRequest]:
    """Raise `MoveRefused` unless `user` may make this move on the request now, confirmed when
    the table says the move needs a confirmation (close, cancel, reopen, final round, addendum)."""
    return REQUEST.require(
        capacity_request, name, actor=request_actor(capacity_request, user), confirmed=confirmed
    )


def bid_move(bid: Bid, name: str, *, user: User) -> Decision[Bid]:
    """Raise `MoveRefused` unless `user` may make this move on the bid now."""
    return BID.require(bid, name, actor=bid_actor(bid, user))


def require_preparing(
    capacity_request: CapacityRequest, *, user: User, what: str, too_late: str | None = None
) -> None:
    """The 'prepare' move for a part of the request (its fixture, terms or questionnaire).

    `too_late` words the refusal by state for that part; `user` is None only for the product's
    own seeding, which is held to the state rule alone."""
    decision = REQUEST.decide(
        capacity_request, "prepare", actor=request_actor(capacity_request, user)
    )
    if decision.why == "state":
        raise Conflict(
            too_late
            or f"The request is {capacity_request.get_status_display().lower()}; its {what} can no "
            "longer change."
        )
    if user is not None and not decision.allowed:
        raise MoveRefused(decision)  # type: ignore[arg-type]
