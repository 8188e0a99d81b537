"""The request side of an export: a buyer's requests with the bids the sealed-bid rules let it
read; a provider's invitations and its own bids. Every read goes through the selector the pages
and the API use for that organisation."""

from __future__ import annotations

from dataclasses import asdict

from acceptance.models import FixtureVersion
from acceptance.selectors.fixtures import fixture_for_request, fixture_version_list
from annexes.models import Annex, AnnexSignature
from annexes.selectors import annex_kinds_for, annex_list
from bids.clarification_selectors import question_rows
from bids.gate_selectors import only_details_open
from bids.models import Addendum, Bid, BidAttachment, BidRevision, CapacityRequest
from bids.selectors import (
    addendum_list,
    attachment_list_for_org,
    bid_rows_for_buyer,
    request_inbox_for_provider,
    request_list_for_buyer,
    revision_list,
)
from contracts.models import HandoffTerms
from contracts.selectors import terms_for_request
from ops.export_rows import Export
from orgs.models import Organization
from questionnaire.models import Question, QuestionSet
from questionnaire.selectors import current_question_set

# What only the buyer reads of its own request: how it scores the bids.
BUYER_ONLY_REQUEST_FIELDS = ("weights",)
CLARIFICATION_KEYS = {
    "request_id": "the id of the capacity request",
    "id": "the question's id",
    "number": "its number on the request",
    "text": "the question",
    "state": "its state (`state_label` in words)",
    "state_label": "its state in words",
    "asked_at": "when it was asked",
    "answer": "the buyer's answer, empty until answered",
    "answered_at": "when it was answered, or null",
    "own": "whether your organisation asked it",
    "addendum_number": "the addendum that published it, or null",
    "asker_org": "the asking provider (the buyer and the asker only; else null)",
    "asker_name": "who asked (the buyer and the asker only; else null)",
}


def declare_request_tables(export: Export, org: Organization) -> None:
    export.table(
        "requests",
        CapacityRequest,
        "The capacity requests: the buyer's own, or those the provider was invited to.",
        exclude=() if org.is_buyer else BUYER_ONLY_REQUEST_FIELDS,
    )
    export.table(
        "fixture_versions",
        FixtureVersion,
        "Every version of each request's fixture.",
        extra={"request_id": "the id of the capacity request"},
    )
    export.table("terms", HandoffTerms, "Each request's hand-off terms as they stand.")
    export.table("questionnaires", QuestionSet, "The questionnaire attached to each request.")
    export.table("questions", Question, "The questions of each questionnaire.")
    export.table("addenda", Addendum, "The addenda published on each request.")
    export.table(
        "clarifications",
        None,
        "Questions asked about each request, as you may read them: the buyer all of them with "
        "the asker, a provider its own and the published ones (anonymous unless its own).",
        extra=CLARIFICATION_KEYS,
    )
    export.table(
        "bids",
        Bid if org.is_provider else None,
        "Your own bids, as you last saved them."
        if org.is_provider
        else "The bids you may read: none while a request's bids are sealed, never drafts.",
        extra={}
        if org.is_provider
        else {
            "id": "the bid's id",
            "request_id": "the id of the capacity request",
            "provider_id": "the id of the provider's organisation",
            "provider": "the provider's name",
            "status": "the bid's status",
            "latest_revision_number": "the number of its latest submitted revision",
        },
    )
    export.table(
        "bid_revisions",
        BidRevision,
        "Submitted revisions: all of your own bids' (provider), the latest of each visible bid's "
        "(buyer).",
    )
    export.table("bid_attachments", BidAttachment, "The files attached to those bids.")
    export.table("annexes", Annex, "Contract annexes, comparisons and statements (PDFs).")
    export.table(
        "annex_signatures",
        AnnexSignature,
        "Signatures on those annexes, buyer first: each `pdf` is the signed document as it stood "
        "after that signature (the issued annex with every signature up to this one), and "
        "`signed_over_sha256` the bytes it extended.",
    )


def collect_requests(export: Export, org: Organization) -> list[CapacityRequest]:
    if org.is_buyer:
        requests = list(request_list_for_buyer(org=org, counts=False))
    else:
        # A gated request's details wait for the organisation's acceptance, here too.
        requests = list(only_details_open(request_inbox_for_provider(org=org)))
    for capacity_request in requests:
        export.add("requests", capacity_request)
        _request_parts(export, capacity_request)
        for question in question_rows(capacity_request=capacity_request, org=org):
            export.tables["clarifications"].rows.append(
                {"request_id": capacity_request.pk, **asdict(question)}
            )
        annexes = list(
            annex_list(
                capacity_request=capacity_request,
                kinds=annex_kinds_for(org=org, capacity_request=capacity_request),
            )
        )
        for annex in annexes:
            export.add("annexes", annex)
        for signature in AnnexSignature.objects.filter(annex__in=annexes).order_by(
            "annex_id", "signed_at"
        ):
            export.add("annex_signatures", signature)
        if org.is_buyer:
            _visible_bids(export, org, capacity_request)
    if org.is_provider:
        _own_bids(export, org)
    return requests


def _request_parts(export: Export, capacity_request: CapacityRequest) -> None:
    fixture = fixture_for_request(capacity_request=capacity_request)
    if fixture is not None:
        for version in fixture_version_list(fixture=fixture):
            export.add("fixture_versions", version, request_id=capacity_request.pk)
    terms = terms_for_request(capacity_request=capacity_request)
    if terms is not None:
        export.add("terms", terms)
    question_set = current_question_set(capacity_request=capacity_request)
    if question_set is not None:
        export.add("questionnaires", question_set)
        for question in question_set.questions.order_by("pk"):
            export.add("questions", question)
    for addendum in addendum_list(capacity_request=capacity_request):
        export.add("addenda", addendum)


def _visible_bids(export: Export, org: Organization, capacity_request: CapacityRequest) -> None:
    for bid, revision in bid_rows_for_buyer(capacity_request=capacity_request):
        export.tables["bids"].rows.append(
            {
                "id": bid.pk,
                "request_id": bid.request_id,
                "provider_id": bid.provider_id,
                "provider": bid.provider.name,
                "status": bid.status,
                "latest_revision_number": bid.latest_revision_number,
            }
        )
        export.add("bid_revisions", revision)
        for attachment in attachment_list_for_org(bid=bid, org=org):
            export.add("bid_attachments", attachment)


def _own_bids(export: Export, org: Organization) -> None:
    for bid in Bid.objects.for_provider(org).order_by("pk"):
        export.add("bids", bid)
        for revision in revision_list(bid=bid):
            export.add("bid_revisions", revision)
        for attachment in attachment_list_for_org(bid=bid, org=org):
            export.add("bid_attachments", attachment)
