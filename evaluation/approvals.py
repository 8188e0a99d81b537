"""Publishing and awarding under the buyer's approval policy, from the pages: a move over a
threshold is asked for instead of made, and the approval that completes it makes it, in the
name of the person who asked (the rules: `bids.services.approvals`).

Here, above bids, because an award made on approval debriefs every bidder
(`evaluation.debrief`) as one made at once does.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from acceptance.models import Reservation
from acceptance.services.award import justification_problem
from bids.models import ApprovalAction, ApprovalRequest, ApprovalStatus, Bid, CapacityRequest
from bids.services import request_publish
from bids.services.approvals import approval_ask, approval_give, must_ask
from bids.services.award import award_allowed
from evaluation.debrief import against_ranking, award_view_chosen, award_with_debrief
from evaluation.selectors import award_rows


def award_or_ask(
    *, capacity_request: CapacityRequest, bid: Bid, user: User, justification: str, view: str
) -> Reservation | ApprovalRequest:
    """Award at once, or ask the approvers when the policy says so. What the award itself would
    refuse (the bid, a missing justification) is refused before anyone is asked."""
    if not must_ask(capacity_request=capacity_request, action=ApprovalAction.AWARD, bid=bid):
        return award_with_debrief(
            capacity_request=capacity_request,
            bid=bid,
            user=user,
            justification=justification,
            view=view,
        )
    return award_ask(
        capacity_request=capacity_request,
        bid=bid,
        user=user,
        justification=justification,
        view=view,
    )


def award_ask(
    *, capacity_request: CapacityRequest, bid: Bid, user: User, justification: str, view: str
) -> ApprovalRequest:
    """Ask the approvers for an award; refused first for whatever the award would refuse."""
    award_allowed(capacity_request=capacity_request, bid=bid, user=user)
    rows = award_rows(capacity_request=capacity_request)
    ranking = award_view_chosen(capacity_request=capacity_request, rows=rows, choice=view)
    against = against_ranking(capacity_request=capacity_request, bid=bid, ranking=ranking)
    if against and (problem := justification_problem(justification.strip(), against=against)):
        raise ValidationError({"justification": [problem]})
    return approval_ask(
        capacity_request=capacity_request,
        action=ApprovalAction.AWARD,
        user=user,
        bid=bid,
        justification=justification,
        view=view,
    )


@dataclass(frozen=True)
class Approved:
    asked: ApprovalRequest
    #: The move the last approval made, or why it could not be made (then it stays approved
    #: and the asker may make it again, on the page or by the API).
    done: bool
    problem: str = ""


def approve(*, asked: ApprovalRequest, user: User, on_behalf_of: User) -> Approved:
    asked = approval_give(asked=asked, user=user, on_behalf_of=on_behalf_of)
    if asked.status != ApprovalStatus.APPROVED:
        return Approved(asked=asked, done=False)
    mover = asked.asked_by
    if mover is None:
        return Approved(asked=asked, done=False, problem="The person who asked left.")
    try:
        if asked.action == ApprovalAction.PUBLISH:
            request_publish(capacity_request=asked.request, user=mover)
        else:
            assert asked.bid is not None
            award_with_debrief(
                capacity_request=asked.request,
                bid=asked.bid,
                user=mover,
                justification=asked.justification,
                view=asked.view,
            )
    except ValidationError as exc:
        return Approved(asked=asked, done=False, problem=" ".join(exc.messages))
    return Approved(asked=asked, done=True)
