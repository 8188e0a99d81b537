"""`/api/v1/requests/`: buyers create and run requests; providers list those they are invited to."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.selectors import fixtures as fixture_selectors
from api import conditional
from api.filters import REQUEST_ORDERING, RequestFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_org, api_user, buyer_org, org_of_kind
from api.serializers.common import ConfirmSerializer
from api.serializers.requests import (
    AddendumSerializer,
    AddendumWriteSerializer,
    FinalRoundSerializer,
    ReopenSerializer,
    RequestDetailSerializer,
    RequestSerializer,
    RequestWriteSerializer,
)
from bids import selectors, services
from bids.gate_selectors import only_details_open
from bids.lots import lot_list
from bids.models import Addendum, CapacityRequest
from contracts import selectors as terms_selectors
from orgs.choices import OrgKind
from questionnaire.selectors import current_question_set


def request_for_org(request: Request, pk: int) -> CapacityRequest:
    """The request if the acting organisation owns it or is invited to it; else 404."""
    return selectors.request_get_for_org(org=api_org(request), pk=pk)


def request_for_buyer(request: Request, pk: int) -> CapacityRequest:
    return selectors.request_get_for_buyer(org=buyer_org(request), pk=pk)


def request_parts(req: CapacityRequest) -> dict[str, Any]:
    """The fixture (current version), terms and question set a bid is made against."""
    from api.views.parts import fixture_payload

    fixture = fixture_selectors.fixture_for_request(capacity_request=req)
    return {
        "fixture": fixture_payload(req, fixture) if fixture is not None else None,
        "terms": terms_selectors.terms_for_request(capacity_request=req),
        "questionnaire": current_question_set(capacity_request=req),
        "lots": list(lot_list(capacity_request=req)),
    }


class RequestListView(generics.ListAPIView[CapacityRequest]):
    """Buyers: their organisation's requests. Providers: the requests they are invited to."""

    serializer_class = RequestSerializer
    filterset_class = RequestFilter
    ordering_fields = REQUEST_ORDERING

    def get_queryset(self) -> QuerySet[CapacityRequest]:
        if getattr(self, "swagger_fake_view", False):
            return CapacityRequest.objects.none()
        org = org_of_kind(self.request)
        if org.kind == OrgKind.BUYER:
            rows = selectors.request_list_for_buyer(org=org, counts=False)
        else:
            # A gated request's details (its allocation and term included) wait for acceptance;
            # the inbox's own bids are the pages', not printed here.
            rows = only_details_open(selectors.request_inbox_for_provider(org=org))
            rows = rows.prefetch_related(None)
        # Every column is read, the five it does not print too: Django builds a row with
        # deferred columns field by field, which cost more than reading them (and the weights'
        # JSON) did.
        return rows

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "now": getattr(self, "now", None)}

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Any:
        rows = self.filter_queryset(self.get_queryset())  # 404 for a caller with no organisation
        org = org_of_kind(request)
        self.now = timezone.now()  # one clock reading for the tag and every row's deadline_passed
        summary = conditional.rows_summary(rows, now=self.now)
        tag = conditional.etag(request, org, org.name, summary)
        if (unchanged := conditional.not_modified(request, tag)) is not None:
            return unchanged
        self.counted_rows = summary.rows  # the paginator's, already read
        page = self.paginate_queryset(rows)  # the rows filtered above: filters built once
        if org.kind == OrgKind.BUYER:
            for row in page or []:
                row.buyer = org  # a buyer lists its own requests: no join for the same row each
        return conditional.tagged(
            self.get_paginated_response(self.get_serializer(page, many=True).data), tag
        )

    @extend_schema(
        request=RequestWriteSerializer,
        responses={201: RequestSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Create a request (buyers); it starts as a draft",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        org = buyer_org(request)
        serializer = RequestWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        req = services.request_create(
            buyer=org, user=api_user(request), data=serializer.validated_data
        )
        return Response(RequestSerializer(req).data, status=status.HTTP_201_CREATED)


class RequestDetailView(generics.GenericAPIView[CapacityRequest]):
    serializer_class = RequestDetailSerializer

    @extend_schema(summary="A request with its fixture, handoff terms and questionnaire")
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_org(request, pk)
        return Response(RequestDetailSerializer(req, context={"parts": request_parts(req)}).data)

    @extend_schema(
        request=RequestWriteSerializer,
        responses=RequestDetailSerializer,
        summary="Edit a draft or open request (buyers)",
    )
    def patch(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = RequestWriteSerializer(req, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        req = services.request_update(
            capacity_request=req, user=api_user(request), data=serializer.validated_data
        )
        return Response(RequestDetailSerializer(req, context={"parts": request_parts(req)}).data)


class RequestPublishView(generics.GenericAPIView[CapacityRequest]):
    serializer_class = RequestSerializer

    @extend_schema(request=None, summary="Publish a draft request: invited providers can bid")
    def post(self, request: Request, pk: int) -> Response:
        req = services.request_publish(
            capacity_request=request_for_buyer(request, pk), user=api_user(request)
        )
        return Response(RequestSerializer(req).data)


class _ConfirmedMoveView(generics.GenericAPIView[CapacityRequest]):
    """A move the request's table says needs a confirmation: `{"confirm": true}`."""

    serializer_class = RequestSerializer
    action = ""

    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        body = ConfirmSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        service = {"close": services.request_close, "cancel": services.request_cancel}[self.action]
        req = service(
            capacity_request=req, user=api_user(request), confirmed=body.validated_data["confirm"]
        )
        return Response(RequestSerializer(req).data)


@extend_schema(
    request=ConfirmSerializer,
    summary="Close bidding now (confirm: true): sealed bids open to the buyer at once, drafts "
    "freeze",
)
class RequestCloseView(_ConfirmedMoveView):
    action = "close"


@extend_schema(request=ConfirmSerializer, summary="Cancel a request that is not awarded (confirm)")
class RequestCancelView(_ConfirmedMoveView):
    action = "cancel"


class RequestReopenView(generics.GenericAPIView[CapacityRequest]):
    serializer_class = RequestSerializer

    @extend_schema(
        request=ReopenSerializer,
        summary="Reopen a closed request until a new deadline (confirm: true); opened bids stay "
        "visible",
    )
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        body = ReopenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        req = services.request_reopen(
            capacity_request=req,
            user=api_user(request),
            bid_deadline=body.validated_data["bid_deadline"],
            confirmed=body.validated_data["confirm"],
        )
        return Response(RequestSerializer(req).data)


class RequestFinalRoundView(generics.GenericAPIView[CapacityRequest]):
    serializer_class = RequestSerializer

    @extend_schema(
        request=FinalRoundSerializer,
        summary="Open the best-and-final round to a shortlist until a new deadline (confirm: "
        "true); sealed again until then",
    )
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        body = FinalRoundSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        req = services.final_round_open(
            capacity_request=req,
            user=api_user(request),
            shortlist=body.validated_data["shortlist"],
            bid_deadline=body.validated_data["bid_deadline"],
            confirmed=body.validated_data["confirm"],
        )
        return Response(RequestSerializer(req).data)


class AddendumListView(generics.ListAPIView[Addendum]):
    """A request's addenda, oldest first: the buyer's and every invitee's alike."""

    serializer_class = AddendumSerializer
    ordering_fields = ["number", "published_at"]

    def get_queryset(self) -> QuerySet[Addendum]:
        if getattr(self, "swagger_fake_view", False):
            return Addendum.objects.none()
        return selectors.addendum_list(
            capacity_request=request_for_org(self.request, self.kwargs["pk"])
        )

    @extend_schema(
        request=AddendumWriteSerializer,
        responses={201: AddendumSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Publish an addendum to an open request (confirm: true); every invited provider "
        "is told",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        body = AddendumWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        addendum = services.addendum_publish(
            capacity_request=req,
            user=api_user(request),
            title=body.validated_data["title"],
            text=body.validated_data["text"],
            confirmed=body.validated_data["confirm"],
            bid_deadline=body.validated_data["bid_deadline"],
            summary=body.validated_data["summary"],
        )
        return Response(AddendumSerializer(addendum).data, status=status.HTTP_201_CREATED)
