"""The notices requests and bids send, and to whom.

- An invitation goes to the invited provider's members once the request is published (an
  invitation to a draft waits for the publish); a rival never learns who else was invited.
- A later bid deadline goes to every invited provider's members, one notice per provider.
- An addendum goes to every invited provider's members, one notice per provider, naming no
  other invitee; the buyer's own members need none (they see it on the request's page).
- A best-and-final round tells each shortlisted provider the new deadline, and each other
  bidder that its bid was not shortlisted; neither learns who else was (or was not).
- A submitted revision of an open (unsealed) request goes to the buyer's members, naming the
  bidder. A sealed request sends nothing per bid: the buyer could count and time the bids. Its
  buyer hears once, when the bids open, how many arrived (`bids_opened_notify`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q, QuerySet
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils import timezone

from bids.choices import BidStatus, RequestStatus
from bids.models import (
    Addendum,
    BidRevision,
    CapacityRequest,
    DetailsGate,
    GateAcceptance,
    Invitation,
    Question,
)
from bids.models.requests import FIRST_ROUND
from notices.choices import Event
from notices.models import Notice
from notices.services import notify_members
from orgs.models import Organization


def _when(value: datetime) -> str:
    return f"{timezone.localtime(value):%-d %b %Y at %H:%M %Z}"


def _path(capacity_request: CapacityRequest) -> str:
    return reverse("bids:request-detail", args=[capacity_request.pk])


def invitation_notify(*, capacity_request: CapacityRequest, provider: Organization) -> list[Notice]:
    if capacity_request.status != RequestStatus.OPEN:
        return []  # a draft is invisible to providers: its publish sends the invitations
    return notify_members(
        event=Event.INVITATION,
        organization=provider,
        subject=f"{capacity_request.buyer.name} invites you to bid on “{capacity_request.title}”",
        body=_invitation_body(capacity_request),
        path=_path(capacity_request),
        key=f"invitation:{capacity_request.pk}:{provider.pk}",
    )


def _invitation_body(capacity_request: CapacityRequest) -> str:
    invites = f"{capacity_request.buyer.name} invites you to bid on “{capacity_request.title}”"
    if DetailsGate.objects.filter(request=capacity_request).exists():
        # The gate holds back everything past the title, the e-mail included.
        return (
            f"{invites}. Its details open once an administrator of your organisation accepts "
            "its non-disclosure terms on the request's page."
        )
    sealed = (
        " Bids are sealed: the buyer sees none before the deadline."
        if capacity_request.sealed
        else ""
    )
    return (
        f"{invites}: "
        f"{capacity_request.gpu_count} × {capacity_request.gpu_model} "
        f"({capacity_request.nodes} nodes × {capacity_request.gpus_per_node} GPUs), "
        f"{capacity_request.reservation_start:%-d %b %Y} to "
        f"{capacity_request.reservation_end:%-d %b %Y}. "
        f"Bids are due by {_when(capacity_request.bid_deadline)}."
        f"{sealed}"
    )


def _each_invitee(
    capacity_request: CapacityRequest,
    *,
    event: Event,
    subject: str,
    body: str,
    key: str,
    anchor: str = "",
    bidding: bool = False,
) -> None:
    """One notice per invited provider, to its members: a rival never learns who else was
    invited. `bidding`: only those who may bid now (in a final round, the shortlisted)."""
    invitations = Invitation.objects.filter(request=capacity_request).select_related("provider")
    if bidding and capacity_request.in_final_round:
        invitations = invitations.filter(
            provider__bids__request=capacity_request, provider__bids__shortlisted=True
        )
    if DetailsGate.objects.filter(request=capacity_request).exists():
        # An invitee that has not accepted the gate reads nothing of the details, notices
        # included; what it missed is on the request's page once it accepts.
        accepted = GateAcceptance.objects.filter(request=capacity_request).values("provider")
        invitations = invitations.filter(provider__in=accepted)
    for invitation in invitations:
        notify_members(
            event=event,
            organization=invitation.provider,
            subject=subject,
            body=body,
            path=_path(capacity_request) + anchor,
            key=key,
        )


def invitations_on_publish(*, capacity_request: CapacityRequest) -> None:
    for invitation in Invitation.objects.filter(request=capacity_request).select_related(
        "provider"
    ):
        invitation_notify(capacity_request=capacity_request, provider=invitation.provider)


def deadline_change_notify(*, capacity_request: CapacityRequest, before: datetime) -> None:
    # The browser's field drops seconds: re-saving the form is no change to announce.
    if capacity_request.status != RequestStatus.OPEN or abs(
        capacity_request.bid_deadline - before
    ) < timedelta(minutes=1):
        return
    _each_invitee(
        capacity_request,
        event=Event.DEADLINE_CHANGED,
        subject=(
            f"New bid deadline for “{capacity_request.title}”: "
            f"{_when(capacity_request.bid_deadline)}"
        ),
        body=(
            f"{capacity_request.buyer.name} moved the bid deadline of "
            f"“{capacity_request.title}” from "
            f"{_when(before)} to {_when(capacity_request.bid_deadline)}."
        ),
        key=f"deadline:{capacity_request.pk}:{capacity_request.bid_deadline.isoformat()}",
        bidding=True,
    )


# An e-mail quotes this much of an addendum; the request's page has all of it.
ADDENDUM_QUOTE = 2_000


def addendum_notify(*, addendum: Addendum) -> None:
    request = addendum.request
    text = addendum.text
    if len(text) > ADDENDUM_QUOTE:
        text = text[:ADDENDUM_QUOTE].rstrip() + " … (the full text is on the request's page)"
    changes = ""
    if addendum.deadline_before and addendum.deadline_after:
        changes += (
            f"\n\nBid deadline: {_when(addendum.deadline_before)} → "
            f"{_when(addendum.deadline_after)}"
        )
    if addendum.summary:
        changes += f"\n\nWhat changed: {addendum.summary}"
    if addendum.question is not None:
        # The question as every invitee reads it: without who asked.
        q = addendum.question
        changes += f"\n\nIt answers published question {q.published_number}: {q.published_text}"
    _each_invitee(
        request,
        event=Event.ADDENDUM,
        subject=f"Addendum {addendum.number} to “{request.title}”: {addendum.title}",
        body=(
            f"{request.buyer.name} published addendum {addendum.number} to "
            f"“{request.title}” on {_when(addendum.published_at)}. It applies to every "
            f"invited provider; bids are due by {_when(request.bid_deadline)}. Acknowledge "
            f"it on the request's page before your next submit.{changes}\n\n"
            f"{addendum.title}\n\n{text}"
        ),
        key=f"addendum:{addendum.pk}",
        anchor="#addenda",
    )


def _sealed(capacity_request: CapacityRequest) -> bool:
    """Sealed bidding: the request's own flag, or a best-and-final round (always sealed)."""
    return capacity_request.sealed or capacity_request.in_final_round


def question_asked_notify(*, question: Question) -> list[Notice]:
    """The buyer's members hear who asked (they answer it), unless the bids are sealed: then
    "an invited provider", as who asks would say who is bidding. Nobody else hears of it."""
    request = question.request
    asker = "An invited provider" if request.bids_hidden_from_buyer else question.provider.name
    return notify_members(
        event=Event.QUESTION_ASKED,
        organization=request.buyer,
        subject=f"{asker} asked question {question.number} on “{request.title}”",
        body=(
            f"{asker} asked on “{request.title}”:\n\n{question.text}\n\n"
            "Answer it privately, or publish it to every invitee without the asker's name."
        ),
        path=_path(request) + "#questions",
        key=f"question:{question.pk}",
    )


def question_answered_notify(*, question: Question) -> None:
    """A private answer goes to the asker's members; a published one to every invitee, the
    asker included, naming nobody (one notice per provider)."""
    request = question.request
    if question.state == "private":
        number = question.own_number
        notify_members(
            event=Event.QUESTION_ANSWERED,
            organization=question.provider,
            subject=f"Answer to your question {number} on “{request.title}”",
            body=f"{request.buyer.name} answered your question privately.\n\n"
            f"Your question {number}: {question.text}\n\nAnswer: {question.answer}",
            path=_path(request) + "#questions",
            key=f"answer:{question.pk}",
        )
        return
    # Every invitee, the asker included, reads the published wording under its published
    # number: the asker's own words and number stay on its page.
    published = question.published_number
    _each_invitee(
        request,
        event=Event.QUESTION_ANSWERED,
        subject=f"Answer to published question {published} on “{request.title}”",
        body=f"{request.buyer.name} published an answer to every invited provider.\n\n"
        f"Published question {published}: {question.published_text}\n\n"
        f"Answer: {question.answer}",
        key=f"answer:{question.pk}",
        anchor="#questions",
    )


def bid_revision_notify(*, revision: BidRevision) -> list[Notice]:
    request = revision.bid.request
    if _sealed(request):
        return []  # sealed: no per-bid notice at all, named or not (see the module's doc)
    provider = revision.bid.provider
    return notify_members(
        event=Event.BID_SUBMITTED,
        organization=request.buyer,
        subject=f"{provider.name} submitted revision {revision.number} on “{request.title}”",
        body=(
            f"{provider.name} submitted revision {revision.number} of its bid on "
            f"“{request.title}” at {revision.price_per_gpu_hour} USD per GPU-hour."
        ),
        path=_path(request),
        key=f"bid-revision:{revision.pk}",
    )


def bids_opened_notify(*, capacity_request: CapacityRequest) -> list[Notice]:
    """A sealed request's one notice to its buyer: how many bids arrived, once they open (once
    more when a final round opens: how many shortlisted bids stand)."""
    if not _sealed(capacity_request) or capacity_request.bids_hidden_from_buyer:
        return []
    bids = capacity_request.bids.filter(status=BidStatus.SUBMITTED)
    count = (bids.filter(shortlisted=True) if capacity_request.in_final_round else bids).count()
    return notify_members(
        event=Event.BIDS_OPENED,
        organization=capacity_request.buyer,
        subject=(
            f"Bids opened on “{capacity_request.title}”: {count} bid{pluralize(count)} received"
        ),
        body=(
            f"The sealed bids on “{capacity_request.title}” are open: "
            f"{count} bid{pluralize(count)} "
            "received. Compare and award them on the request's page."
        ),
        path=_path(capacity_request),
        key=f"bids-opened:{capacity_request.pk}"
        + (":final" if capacity_request.in_final_round else ""),
    )


# A sweep looks this far back for deadlines it may have missed (the worker was down).
OPENING_LOOKBACK = timedelta(days=7)


def requests_opened_since(*, now: datetime) -> QuerySet[CapacityRequest]:
    return CapacityRequest.objects.filter(
        Q(sealed=True) | Q(round__gt=FIRST_ROUND),
        status__in=[RequestStatus.OPEN, RequestStatus.CLOSED],
        bid_deadline__lte=now,
        bid_deadline__gt=now - OPENING_LOOKBACK,
    ).select_related("buyer")


def bids_opened_sweep(*, now: datetime | None = None) -> int:
    """Send the opening notice of every sealed request whose deadline passed; returns how many
    notices were written (0 on a second run)."""
    sent = 0
    for request in requests_opened_since(now=now or timezone.now()):
        sent += len(bids_opened_notify(capacity_request=request))
    return sent


def closed_early_notify(*, capacity_request: CapacityRequest) -> None:
    """Every invited provider hears that bidding stopped; a sealed request's buyer hears at once
    how many bids arrived (the bids opened with the close)."""
    closed = capacity_request.closed_at or timezone.now()
    early = closed < capacity_request.bid_deadline
    _each_invitee(
        capacity_request,
        event=Event.REQUEST_CLOSED,
        subject=f"Bidding on “{capacity_request.title}” closed{' early' if early else ''}",
        body=(
            f"{capacity_request.buyer.name} closed bidding on “{capacity_request.title}” "
            f"on {_when(closed)}"
            + (f", before the deadline of {_when(capacity_request.bid_deadline)}" if early else "")
            + ". Bids can no longer be submitted or changed; a draft stays as it was."
        ),
        key=f"closed:{capacity_request.pk}:{closed.isoformat()}",
    )
    bids_opened_notify(capacity_request=capacity_request)


def reopened_notify(*, capacity_request: CapacityRequest) -> None:
    """Every invited provider hears the new deadline (a second reopen is a new notice); in a
    final round, the shortlisted alone."""
    _each_invitee(
        capacity_request,
        event=Event.REQUEST_REOPENED,
        subject=(
            f"Bidding on “{capacity_request.title}” reopened until "
            f"{_when(capacity_request.bid_deadline)}"
        ),
        body=(
            f"{capacity_request.buyer.name} reopened bidding on “{capacity_request.title}”. "
            "Bids are due by "
            f"{_when(capacity_request.bid_deadline)}; you can submit or revise yours until then."
        ),
        key=f"reopened:{capacity_request.pk}:{capacity_request.bid_deadline.isoformat()}",
        bidding=True,
    )


def final_round_notify(
    *, capacity_request: CapacityRequest, shortlisted_bid_ids: list[int]
) -> None:
    """One notice per invited provider: shortlisted, with the new deadline, or not (an
    invitee that never bid hears that bidding goes on without it)."""
    deadline = _when(capacity_request.bid_deadline)
    shortlisted = set(
        capacity_request.bids.filter(pk__in=shortlisted_bid_ids).values_list(
            "provider_id", flat=True
        )
    )
    for invitation in Invitation.objects.filter(request=capacity_request).select_related(
        "provider"
    ):
        if invitation.provider_id in shortlisted:
            subject = f"Shortlisted for the best-and-final round on “{capacity_request.title}”"
            body = (
                f"{capacity_request.buyer.name} shortlisted your bid on "
                f"“{capacity_request.title}” for a "
                f"best-and-final round. You may revise and submit your final offer until "
                f"{deadline}; the round is sealed until then. If you do not revise, your last "
                "submitted revision stands as your final offer."
            )
        else:
            subject = f"Not shortlisted for the best-and-final round on “{capacity_request.title}”"
            body = (
                f"{capacity_request.buyer.name} opened a best-and-final round on "
                f"“{capacity_request.title}” "
                "without your organisation: a bid you submitted stays as it was and can no "
                "longer be revised, and no new bid is taken."
            )
        notify_members(
            event=Event.FINAL_ROUND,
            organization=invitation.provider,
            subject=subject,
            body=body,
            path=_path(capacity_request),
            key=f"final-round:{capacity_request.pk}:{invitation.provider_id}",
        )
