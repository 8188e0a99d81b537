"""Reads for the clarification channel: questions, answers and addendum acknowledgements.

A rival invitee reads a published question without its asker: the rows below carry the
asking organisation and person only for the buyer and for the asker itself, so no page or
serializer can print what it was never given. While a request's bids are sealed its buyer reads
the questions without their askers and no acknowledgement at all: who is engaged, and when,
would tell the buyer who is bidding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q
from django.http import Http404

from bids.models import Addendum, AddendumAcknowledgement, CapacityRequest, Question
from orgs.models import Organization


@dataclass(frozen=True)
class QuestionRow:
    id: int
    # The reader's number: the buyer's request-wide one, the asker's own count, or for every
    # other invitee the published count; none of them tells an invitee that others asked.
    number: int
    label: str
    # The asker's words for the buyer and the asker; the published wording for other invitees.
    text: str
    state: str
    state_label: str
    asked_at: datetime
    answer: str
    answered_at: datetime | None
    own: bool  # asked by the reader's organisation
    addendum_number: int | None
    # The buyer's and the asker's only; None for every other reader.
    asker_org: str | None = None
    asker_name: str | None = None
    # Once published: the wording and number every invitee reads (the buyer may have edited
    # or redacted the asker's text first).
    published_text: str = ""
    published_number: int | None = None


def _user_name(user: object) -> str:
    if user is None:
        return ""
    full = user.get_full_name()  # type: ignore[attr-defined]
    return str(full or user.get_username())  # type: ignore[attr-defined]


def question_rows(*, capacity_request: CapacityRequest, org: Organization) -> list[QuestionRow]:
    """What `org` may read of the request's questions, first first: the buyer all of them
    with the asker; a provider its own (with their state) and the published ones, anonymous
    unless its own. Pass a request `org` may see (`request_get_for_org`)."""
    is_buyer = capacity_request.buyer_id == org.pk
    sealed = is_buyer and capacity_request.bids_hidden_from_buyer
    qs = Question.objects.filter(request=capacity_request).select_related(
        "provider", "asked_by", "addendum"
    )
    if not is_buyer:
        qs = qs.filter(Q(provider=org) | Q(state="published"))
    rows = []
    for q in qs.order_by("number"):
        own = q.provider_id == org.pk
        named = (is_buyer and not sealed) or own
        addendum = getattr(q, "addendum", None)
        number, label = _reader_number(q, is_buyer=is_buyer, own=own)
        rows.append(
            QuestionRow(
                id=q.pk,
                number=number,
                label=label,
                text=q.text if is_buyer or own else q.published_text,
                state=q.state,
                state_label=q.get_state_display(),
                asked_at=q.asked_at,
                # A private answer is for the asker (and the buyer) only: the filter above.
                answer=q.answer,
                answered_at=q.answered_at,
                own=own,
                addendum_number=addendum.number if addendum is not None else None,
                asker_org=q.provider.name if named else None,
                asker_name=_user_name(q.asked_by) if named else None,
                published_text=q.published_text,
                published_number=q.published_number,
            )
        )
    if not is_buyer:
        # A provider reads its own questions first, then the others' published ones, each in
        # its own count: the request-wide order would interleave them and show the gaps.
        rows.sort(key=lambda r: (not r.own, r.number))
    return rows


def _reader_number(q: Question, *, is_buyer: bool, own: bool) -> tuple[int, str]:
    if is_buyer:
        return q.number, f"Question {q.number}"
    if own:
        return q.own_number, f"Your question {q.own_number}"
    assert q.published_number is not None  # others read only the published ones
    return q.published_number, f"Published question {q.published_number}"


def question_get_for_buyer(*, capacity_request: CapacityRequest, number: int) -> Question:
    try:
        return Question.objects.select_related("request", "provider").get(
            request=capacity_request, number=number
        )
    except Question.DoesNotExist:
        raise Http404 from None


def addendum_get(*, capacity_request: CapacityRequest, number: int) -> Addendum:
    try:
        return Addendum.objects.select_related("request").get(
            request=capacity_request, number=number
        )
    except Addendum.DoesNotExist:
        raise Http404 from None


def addenda_unacknowledged(*, capacity_request: CapacityRequest, provider_id: int) -> list[int]:
    """The numbers of the request's addenda the provider has not acknowledged, in order."""
    return list(
        Addendum.objects.filter(request=capacity_request)
        .exclude(acknowledgements__provider_id=provider_id)
        .order_by("number")
        .values_list("number", flat=True)
    )


@dataclass
class AddendumAcks:
    """One addendum as the reader sees its acknowledgements: the buyer each invitee's, a
    provider only its own."""

    addendum: Addendum
    mine: AddendumAcknowledgement | None = None
    by_provider: list[tuple[str, AddendumAcknowledgement | None]] = field(default_factory=list)
    sealed: bool = False  # the buyer's, while the bids are sealed: no row, no count


def acknowledgements_sealed(*, capacity_request: CapacityRequest, org: Organization) -> bool:
    return capacity_request.buyer_id == org.pk and capacity_request.bids_hidden_from_buyer


def addendum_acks(*, capacity_request: CapacityRequest, org: Organization) -> list[AddendumAcks]:
    """Every addendum with who acknowledged it (two queries, whatever the count)."""
    is_buyer = capacity_request.buyer_id == org.pk
    sealed = acknowledgements_sealed(capacity_request=capacity_request, org=org)
    addenda = list(
        capacity_request.addenda.select_related("question", "published_by").order_by("number")
    )
    acks = AddendumAcknowledgement.objects.filter(
        addendum__request=capacity_request
    ).select_related("provider", "acknowledged_by")
    if not is_buyer or sealed:
        acks = acks.filter(provider=org)
    by_key = {(a.addendum_id, a.provider_id): a for a in acks}
    invitees: list[Organization] = []
    if is_buyer and not sealed:
        invitees = [
            i.provider
            for i in capacity_request.invitations.select_related("provider").order_by(
                "provider__name"
            )
        ]
    rows = []
    for addendum in addenda:
        row = AddendumAcks(addendum=addendum, mine=by_key.get((addendum.pk, org.pk)), sealed=sealed)
        row.by_provider = [(p.name, by_key.get((addendum.pk, p.pk))) for p in invitees]
        rows.append(row)
    return rows
