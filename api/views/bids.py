"""`/api/v1/bids/`: a provider's bids — draft, answer, submit (a frozen revision), withdraw."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api import conditional
from api.filters import BID_ORDERING, REVISION_ORDERING, BidFilter, RevisionFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_org, api_user, provider_org
from api.serializers.bids import (
    BID_TERM_FIELDS,
    BidCreateSerializer,
    BidRevisionSerializer,
    BidSerializer,
    BidTermsWriteSerializer,
)
from bids import selectors, services
from bids.models import Bid, BidRevision
from questionnaire.services.conflicts import conflicts_keep
from questionnaire.services.drafts import bid_draft_save


def _split(validated: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    data = dict(validated)
    data.pop("request", None)
    answers = data.pop("answers", None)
    return data, answers


def bid_response(request: Request, bid: Bid, code: int = status.HTTP_200_OK) -> Response:
    """The owner reads its draft; the buyer reads the latest frozen revision."""
    org = api_org(request)
    context: dict[str, Any] = {}
    if org is None or bid.provider_id != org.pk:
        latest = selectors.latest_revision(bid=bid)
        context["revisions"] = {bid.pk: latest} if latest is not None else {}
    return Response(BidSerializer(bid, context=context).data, status=code)


# What the buyer's answer never shows of the bid's row: the draft (it shows the latest revision,
# frozen and named by `latest_revision_number`), nor whether the provider is editing it.
DRAFT_ONLY = {*BID_TERM_FIELDS, "has_unsubmitted_changes"}


def bid_etag(request: Request, bid: Bid) -> str | None:
    """What one bid's answer is built from: the bid's row and provider's name, and for the owner
    the draft answers. The buyer's tag moves with nothing the buyer's answer does not show."""
    org = api_org(request)
    assert org is not None  # bid_get_for_org refused a caller with no organisation
    if bid.provider_id != org.pk:
        shown = conditional.row_values(bid, leave_out=DRAFT_ONLY)
        return conditional.etag(request, org, "buyer", shown, bid.provider.name)
    row = getattr(bid, "questionnaire_answers", None)
    answers = None if row is None else (row.question_set_id, row.answers)
    shown = conditional.row_values(bid)
    return conditional.etag(request, org, "owner", shown, bid.provider.name, answers)


class BidListView(generics.ListAPIView[Bid]):
    """Providers: your organisation's bids, drafts included."""

    serializer_class = BidSerializer
    filterset_class = BidFilter
    ordering_fields = BID_ORDERING

    def get_queryset(self) -> QuerySet[Bid]:
        if getattr(self, "swagger_fake_view", False):
            return Bid.objects.none()
        org = provider_org(self.request)
        return (
            Bid.objects.for_provider(org)
            .select_related("provider", "questionnaire_answers")
            .order_by("-updated_at")
        )

    @extend_schema(
        request=BidCreateSerializer,
        responses={201: BidSerializer, 200: BidSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Start a bid (draft) with terms and answers; 200 with the bid if one exists",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        org = provider_org(request)
        serializer = BidCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        req = selectors.request_get_for_org(org=org, pk=serializer.validated_data["request"])
        existed = selectors.own_bid(capacity_request=req, org=org) is not None
        user = api_user(request)
        bid = services.bid_start(capacity_request=req, provider=org, user=user)
        terms, answers = _split(serializer.validated_data)
        if terms or answers is not None:
            bid = bid_draft_save(bid=bid, user=user, terms=terms, answers=answers)
        code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
        return bid_response(request, bid, code)


class BidDetailView(generics.GenericAPIView[Bid]):
    serializer_class = BidSerializer

    @extend_schema(summary="A bid: the owner sees its draft, the buyer the latest revision")
    def get(self, request: Request, pk: int) -> Any:
        # 404 for all others; the buyer's answer is the latest revision, read in the same query.
        bid = selectors.bid_get_for_org(org=api_org(request), pk=pk, with_latest=True)
        tag = bid_etag(request, bid)
        if (unchanged := conditional.not_modified(request, tag)) is not None:
            return unchanged
        return conditional.tagged(bid_response(request, bid), tag)

    @extend_schema(
        request=BidTermsWriteSerializer,
        responses=BidSerializer,
        summary="Save the draft: terms and/or answers (errors name the field or answers.<key>)",
    )
    def patch(self, request: Request, pk: int) -> Response:
        bid = selectors.bid_get_for_provider(org=provider_org(request), pk=pk)
        serializer = BidTermsWriteSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        terms, answers = _split(serializer.validated_data)
        bid = bid_draft_save(bid=bid, user=api_user(request), terms=terms, answers=answers)
        return bid_response(request, bid)


class BidSubmitView(generics.GenericAPIView[BidRevision]):
    serializer_class = BidRevisionSerializer

    @extend_schema(
        request=None,
        responses={201: BidRevisionSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Submit (or revise): freeze the draft into the next immutable revision",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        bid = selectors.bid_get_for_provider(org=provider_org(request), pk=pk)
        revision = services.bid_submit(bid=bid, user=api_user(request))
        return Response(BidRevisionSerializer(revision).data, status=status.HTTP_201_CREATED)


class ConflictsKeepSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(
        max_length=2000,
        help_text="Why both values stand: at least one full sentence. The buyer reads it.",
    )


class ConflictsKeptSerializer(serializers.Serializer[Any]):
    kept = serializers.ListField(child=serializers.CharField(), source="messages")
    reason = serializers.CharField()


class BidConflictsKeepView(generics.GenericAPIView[Bid]):
    serializer_class = ConflictsKeepSerializer

    @extend_schema(
        request=ConflictsKeepSerializer,
        responses={200: ConflictsKeptSerializer},
        summary="Keep the draft's conflicting values (one fact, two values) as stated, with why",
    )
    def post(self, request: Request, pk: int) -> Response:
        bid = selectors.bid_get_for_provider(org=provider_org(request), pk=pk)
        body = ConflictsKeepSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        kept = conflicts_keep(bid=bid, user=api_user(request), reason=body.validated_data["reason"])
        return Response(ConflictsKeptSerializer(kept).data)


class BidWithdrawView(generics.GenericAPIView[Bid]):
    serializer_class = BidSerializer

    @extend_schema(request=None, summary="Withdraw a submitted bid (before the deadline)")
    def post(self, request: Request, pk: int) -> Response:
        bid = selectors.bid_get_for_provider(org=provider_org(request), pk=pk)
        return bid_response(request, services.bid_withdraw(bid=bid, user=api_user(request)))


class RevisionListView(generics.ListAPIView[BidRevision]):
    serializer_class = BidRevisionSerializer
    filterset_class = RevisionFilter
    ordering_fields = REVISION_ORDERING

    def get_queryset(self) -> QuerySet[BidRevision]:
        if getattr(self, "swagger_fake_view", False):
            return BidRevision.objects.none()
        bid = selectors.bid_get_for_org(org=api_org(self.request), pk=self.kwargs["pk"])
        return selectors.revision_list(bid=bid)


class RevisionDetailView(generics.GenericAPIView[BidRevision]):
    serializer_class = BidRevisionSerializer

    def get(self, request: Request, pk: int, number: int) -> Response:
        bid = selectors.bid_get_for_org(org=api_org(request), pk=pk)
        return Response(BidRevisionSerializer(selectors.revision_get(bid=bid, number=number)).data)
