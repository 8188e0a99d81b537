"""Reads, with tenancy built in: each function returns only what the organisation may see."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Count,
    F,
    FilteredRelation,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.http import Http404

from bids.choices import BidStatus, RequestStatus
from bids.gate_selectors import require_details_open, with_gate_state
from bids.models import Addendum, Bid, BidAttachment, BidRevision, CapacityRequest, Invitation
from bids.models.bids import BidTerms
from bids.models.requests import ALLOCATION_FIELDS, TERM_FIELDS
from orgs.choices import OrgKind
from orgs.models import Organization


def _count_per_request(rows: QuerySet[Any]) -> Coalesce:
    """A correlated count: one row per request, where a join of invitations × bids would
    multiply rows and need DISTINCT over the product."""
    counted = (
        rows.filter(request=OuterRef("pk"))
        .order_by()
        .values("request")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def request_list_for_buyer(*, org: Organization, counts: bool = True) -> QuerySet[CapacityRequest]:
    """The buyer's requests, newest first; `counts` adds the invited and submitted counts the
    page shows (the API, which does not output them, leaves them out)."""
    qs = CapacityRequest.objects.filter(buyer=org).order_by("-created_at")
    if not counts:
        return qs
    submitted = Bid.objects.filter(
        status__in=[BidStatus.SUBMITTED, BidStatus.AWARDED, BidStatus.LOST]
    )
    return qs.annotate(
        invited_count=_count_per_request(Invitation.objects.all()),
        submitted_count=_count_per_request(submitted),
    )


def request_inbox_for_provider(*, org: Organization) -> QuerySet[CapacityRequest]:
    """The requests `org` is invited to, each with its gate state (`with_gate_state`): a gated
    one shows its title only until `org` accepts."""
    return (
        with_gate_state(CapacityRequest.objects.visible_to_provider(org), org=org)
        .select_related("buyer")
        .prefetch_related(
            Prefetch("bids", queryset=Bid.objects.filter(provider=org), to_attr="own_bids")
        )
        .order_by("bid_deadline")
    )


def request_get_for_org(*, org: Organization | None, pk: int) -> CapacityRequest:
    """The request if the org owns it (buyer) or is invited to it (provider); else 404. An
    invitee that has not accepted the request's gate gets `DetailsGated` instead
    (bids.gate_selectors): every reader of the request's details comes through here."""
    req = request_title_for_org(org=org, pk=pk)
    assert org is not None
    require_details_open(capacity_request=req, org=org)
    return req


def request_title_for_org(*, org: Organization | None, pk: int) -> CapacityRequest:
    """The request for its title and its gate only: the buyer's, or one the org is invited to,
    whether or not the org accepted the gate; else 404."""
    if org is None:
        raise Http404
    base = CapacityRequest.objects.select_related("buyer")
    qs: QuerySet[CapacityRequest] = (
        base.filter(buyer=org)
        if org.kind == OrgKind.BUYER
        else with_gate_state(base.visible_to_provider(org), org=org)
    )
    try:
        return qs.get(pk=pk)
    except CapacityRequest.DoesNotExist:
        raise Http404 from None


def request_get_for_buyer(*, org: Organization | None, pk: int) -> CapacityRequest:
    req = request_get_for_org(org=org, pk=pk)
    if org is None or req.buyer_id != org.pk:
        raise Http404
    return req


def invited_provider_for_buyer(
    *, org: Organization | None, pk: int, provider: int
) -> tuple[CapacityRequest, Organization]:
    """The buyer's request and a provider it invited to it; else 404 (a buyer reads the
    supplier profiles of the providers it invited, nobody else's)."""
    req = request_get_for_buyer(org=org, pk=pk)
    invitation = req.invitations.select_related("provider").filter(provider_id=provider).first()
    if invitation is None:
        raise Http404
    return req, invitation.provider


def invitation_list(*, capacity_request: CapacityRequest) -> QuerySet[Invitation]:
    return capacity_request.invitations.select_related("provider").order_by("provider__name")


def addendum_list(*, capacity_request: CapacityRequest) -> QuerySet[Addendum]:
    """A request's addenda, first first: the same list for the buyer and every invitee (pass a
    request the caller's organisation may see, e.g. from `request_get_for_org`)."""
    return capacity_request.addenda.select_related("published_by").order_by("number")


def provider_choices(*, capacity_request: CapacityRequest) -> QuerySet[Organization]:
    return Organization.objects.filter(kind=OrgKind.PROVIDER).exclude(
        invitations__request=capacity_request
    )


def bid_list_for_buyer(*, capacity_request: CapacityRequest) -> QuerySet[Bid]:
    """Bids the buyer may see: none while sealed, never drafts (they are the provider's notes)."""
    if capacity_request.bids_hidden_from_buyer:
        return Bid.objects.none()
    return (
        capacity_request.bids.exclude(status=BidStatus.DRAFT)
        .exclude(latest_revision_number=0)
        .select_related("provider")
        .order_by("provider__name")
    )


def latest_revisions(bids: Iterable[Bid]) -> dict[int, BidRevision]:
    """Each bid's latest submitted revision by bid id (one query): what a buyer may read, never
    the provider's working copy."""
    ids = [bid.pk for bid in bids]
    if not ids:
        return {}
    return {
        revision.bid_id: revision
        for revision in BidRevision.objects.filter(
            bid__in=ids, number=F("bid__latest_revision_number")
        )
    }


def bid_rows_for_buyer(
    *,
    capacity_request: CapacityRequest,
    only: Q | None = None,
    related: Sequence[str] = (),
    columns: Sequence[str] = (),
) -> list[tuple[Bid, BidRevision]]:
    """Each visible bid with its latest submitted revision; `only` narrows the bids further
    (what the buyer may see is decided here all the same), `related` joins what the caller
    reads of each bid besides its provider, `columns` names the only columns of the bid and
    its provider it reads, where it reads few (all by default)."""
    visible = bid_list_for_buyer(capacity_request=capacity_request).select_related(*related)
    if columns:
        visible = visible.only(*columns)
    bids = list(visible if only is None else visible.filter(only))
    latest = latest_revisions(bids)
    return [(bid, latest[bid.pk]) for bid in bids if bid.pk in latest]


#: The bid's latest submitted revision, joined where a reader asks for it (`with_latest`).
_LATEST = "latest_submitted"


# The bid's columns, and its request's that say who may read it (`bids_hidden_from_buyer`).
_BID_READ = (
    *(f.name for f in Bid._meta.concrete_fields),
    *(
        f"request__{name}"
        for name in ("buyer", "sealed", "round", "bids_opened_at", "bid_deadline")
    ),
    "provider__name",
)
_DRAFT_TERMS = tuple(f.name for f in BidTerms._meta.fields)


def bid_get_for_org(*, org: Organization | None, pk: int, with_latest: bool = False) -> Bid:
    """A provider sees its own bid; the buyer sees a submitted bid once the seal lifts.
    `with_latest`: its latest submitted revision comes in the same query, for
    `latest_revision` to hand out, with only what one bid's answer reads of the rest (for a
    buyer, not the draft's terms)."""
    if org is None:
        raise Http404
    if with_latest:
        latest = Q(revisions__number=F("latest_revision_number"))
        bids = Bid.objects.annotate(**{_LATEST: FilteredRelation("revisions", condition=latest)})
        # A read of one bid: of its request and provider, only what the check below and the
        # bid's answer read (building a wide join's SQL cost more than running it).
        bids = bids.select_related("request", "provider", _LATEST).only(*_BID_READ)
        if org.kind == OrgKind.BUYER:  # a buyer reads the latest revision's terms, not the draft's
            bids = bids.defer(*_DRAFT_TERMS)
    else:
        bids = Bid.objects.select_related("request__buyer", "provider")
    try:
        bid = bids.get(pk=pk)
    except Bid.DoesNotExist:
        raise Http404 from None
    if bid.provider_id == org.pk:
        return bid
    if (
        bid.request.buyer_id == org.pk
        and bid.latest_revision_number > 0
        and not bid.request.bids_hidden_from_buyer
    ):
        return bid
    raise Http404


def bid_get_for_provider(*, org: Organization | None, pk: int) -> Bid:
    bid = bid_get_for_org(org=org, pk=pk)
    if org is None or bid.provider_id != org.pk:
        raise Http404
    return bid


def revision_list(*, bid: Bid) -> QuerySet[BidRevision]:
    return bid.revisions.select_related("submitted_by").order_by("-number")


def latest_revision(*, bid: Bid) -> BidRevision | None:
    """The bid's latest submitted revision (what its buyer reads of it), without who submitted
    it; None before the first submit."""
    if _LATEST in bid.__dict__:  # read with the bid (`bid_get_for_org(with_latest=True)`)
        return bid.__dict__[_LATEST]
    return bid.revisions.order_by("-number").first()


def revision_get(*, bid: Bid, number: int) -> BidRevision:
    try:
        return bid.revisions.select_related("submitted_by").get(number=number)
    except BidRevision.DoesNotExist:
        raise Http404 from None


def own_bid(*, capacity_request: CapacityRequest, org: Organization) -> Bid | None:
    return Bid.objects.filter(request=capacity_request, provider=org).first()


# What providers price: fixed from publishing, whether or not anyone has bid yet.
BID_ON_FIELDS = (*ALLOCATION_FIELDS, *TERM_FIELDS)


@dataclass(frozen=True)
class Lock:
    note: str  # beside the disabled field on the form
    refusal: str  # when a change is sent anyway (API, or a tampered form)


SEALED_LOCK = Lock(
    note="Fixed once the request is published.",
    refusal="Sealed bidding is fixed once the request is published: providers bid on that promise.",
)
# Worded without bids: a sealed request's buyer must not learn from it whether any exist.
PUBLISHED_LOCK = Lock(
    note="Fixed once the request is published.",
    refusal="This is fixed once the request is published: providers price what was published. "
    "To ask for something else, cancel this request and post a new one.",
)


def request_locked_fields(*, capacity_request: CapacityRequest) -> dict[str, Lock]:
    """Fields that can no longer change, and why: the one rule the form and the service read."""
    if capacity_request.status != RequestStatus.OPEN:
        return {}
    return {"sealed": SEALED_LOCK} | dict.fromkeys(BID_ON_FIELDS, PUBLISHED_LOCK)


def shortlist_choices(*, capacity_request: CapacityRequest) -> QuerySet[Bid]:
    """The bids a best-and-final round may shortlist: submitted ones the buyer may see."""
    return bid_list_for_buyer(capacity_request=capacity_request).filter(status=BidStatus.SUBMITTED)


def shortlisted_bids(*, capacity_request: CapacityRequest) -> QuerySet[Bid]:
    """The buyer's own shortlist (it chose it: no seal hides it), by provider name."""
    return (
        capacity_request.bids.filter(shortlisted=True)
        .select_related("provider")
        .order_by("provider__name")
    )


# Attachments -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AttachmentRow:
    """One file as a page lists it: from the draft (the owner) or a revision's frozen record."""

    id: int
    name: str
    size: int
    sha256: str
    content_type: str
    description: str
    first_revision: int | None = None  # None: not submitted yet (draft rows only)


def attachment_rows_of_revision(*, revision: BidRevision) -> list[AttachmentRow]:
    return [
        AttachmentRow(
            id=row["id"],
            name=row["name"],
            size=row["size"],
            sha256=row["sha256"],
            content_type=row.get("content_type", ""),
            description=row.get("description", ""),
        )
        for row in revision.attachments or []
    ]


def attachment_rows_of_draft(*, bid: Bid) -> list[AttachmentRow]:
    """The files the next revision will carry (the provider's own view)."""
    return [
        AttachmentRow(
            id=a.pk,
            name=a.original_name,
            size=a.size,
            sha256=a.sha256,
            content_type=a.content_type,
            description=a.description,
            first_revision=a.first_revision,
        )
        for a in BidAttachment.objects.filter(bid=bid).for_next_revision()
    ]


def attachment_list_for_org(*, bid: Bid, org: Organization) -> QuerySet[BidAttachment]:
    """The owner: the files the next revision carries; the buyer: those of the latest submitted
    revision. Pass a bid from `bid_get_for_org`, which already refuses everyone else."""
    if bid.provider_id == org.pk:
        return BidAttachment.objects.filter(bid=bid).for_next_revision()
    latest = bid.revisions.filter(number=bid.latest_revision_number).first()
    ids = [row["id"] for row in (latest.attachments if latest else [])]
    return bid.attachments.filter(pk__in=ids).order_by("uploaded_at", "pk")


def attachment_get_for_org(*, org: Organization | None, bid_pk: int, pk: int) -> BidAttachment:
    """A file of a bid the org may read: the owner any of its files, the buyer (once the seal
    lifts, see `bid_get_for_org`) only a file some submitted revision carried; else 404."""
    bid = bid_get_for_org(org=org, pk=bid_pk)
    try:
        attachment = bid.attachments.select_related("bid").get(pk=pk)
    except BidAttachment.DoesNotExist:
        raise Http404 from None
    if org is not None and bid.provider_id != org.pk and not attachment.frozen:
        raise Http404
    return attachment
