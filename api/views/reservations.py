"""Reservations after the award: burn-in runs (both parties), the buyer's accept or reject, and
acceptance over a failing gate (asked by one buyer, approved by a second). Decisions go through
the reservation's table: the provider is refused with 403, a move out of turn with 409."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.lifecycle import case_for, pending_override, reservation_move
from acceptance.models import Acceptance, BurnInRun, OverrideRequest, Reservation
from acceptance.selectors import burnin as sel
from acceptance.services import burnin as burnin_services
from acceptance.services import decision as decision_services
from acceptance.services import override as override_services
from api import selectors as api_selectors
from api.filters import RESERVATION_ORDERING, ReservationFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.parsers import JSONParser
from api.permissions import api_user, org_of_kind
from api.serializers.reservations import (
    AcceptSerializer,
    DecisionSerializer,
    DeclineSerializer,
    OverrideRequestSerializer,
    OverrideSerializer,
    RejectSerializer,
    ReservationSerializer,
    RunCreateSerializer,
    RunSerializer,
)


def _reservation(request: Request, pk: int) -> Reservation:
    return sel.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _run_of(request: Request, run_id: int) -> BurnInRun:
    """A run the caller may see (anyone else's: 404, as on GET); the service names a run of
    another of the caller's reservations. Looking among both parties' runs would let a buyer
    learn which ids its provider's other customers' runs have."""
    return sel.run_get(org_ids=[org_of_kind(request).pk], pk=run_id)


def _pending(request: Request, reservation: Reservation, move: str) -> OverrideRequest:
    """The pending override; without one the table refuses (403 or 409) with its reason."""
    override = pending_override(reservation)
    if override is None:
        reservation_move(case_for(reservation), move, user=api_user(request))
        raise Http404  # unreachable: no pending override means no approval is due
    return override


class ReservationListView(generics.ListAPIView[Reservation]):
    """Reservations your organisation is a party to (buyer or awarded provider)."""

    serializer_class = ReservationSerializer
    filterset_class = ReservationFilter
    ordering_fields = RESERVATION_ORDERING

    def get_queryset(self) -> QuerySet[Reservation]:
        if getattr(self, "swagger_fake_view", False):
            return Reservation.objects.none()
        return api_selectors.reservation_list(org_ids=[org_of_kind(self.request).pk])


class ReservationDetailView(generics.GenericAPIView[Reservation]):
    serializer_class = ReservationSerializer

    def get(self, request: Request, pk: int) -> Response:
        return Response(ReservationSerializer(_reservation(request, pk)).data)


class RunCreateView(generics.GenericAPIView[BurnInRun]):
    serializer_class = RunSerializer

    @extend_schema(
        request=RunCreateSerializer,
        responses={201: RunSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Start a burn-in run; upload its evidence at /runs/{id}/evidence/",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = RunCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run = burnin_services.run_create(
            reservation=reservation,
            user=api_user(request),
            label=serializer.validated_data.get("label", ""),
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class ReservationAcceptView(generics.GenericAPIView[Acceptance]):
    serializer_class = DecisionSerializer

    @extend_schema(
        request=AcceptSerializer,
        responses={201: DecisionSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Accept on a passing gate (buyers); a failing gate needs an override",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = AcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        decision = decision_services.reservation_accept(
            reservation=reservation,
            run=_run_of(request, serializer.validated_data["run"]),
            user=api_user(request),
        )
        return Response(DecisionSerializer(decision).data, status=status.HTTP_201_CREATED)


class ReservationRejectView(generics.GenericAPIView[Acceptance]):
    serializer_class = DecisionSerializer

    @extend_schema(
        request=RejectSerializer,
        responses={201: DecisionSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Reject the reservation with a reason (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = RejectSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        decision = decision_services.reservation_reject(
            reservation=reservation,
            user=api_user(request),
            reason=serializer.validated_data["reason"],
        )
        return Response(DecisionSerializer(decision).data, status=status.HTTP_201_CREATED)


class OverrideRequestView(generics.GenericAPIView[OverrideRequest]):
    serializer_class = OverrideSerializer
    # JSON only: `waived` may be an empty list, which a form body cannot carry.
    parser_classes = [JSONParser]

    @extend_schema(
        request=OverrideRequestSerializer,
        responses={201: OverrideSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Ask to accept over a failing gate (buyers); a second buyer-side approver decides",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = OverrideRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        override = override_services.override_request(
            reservation=reservation,
            run=_run_of(request, data["run"]),
            user=api_user(request),
            reason=data["reason"],
            waived=data["waived"],
            baseline_from_run=data["baseline_from_run"],
            confirmed=data["confirm"],
        )
        return Response(OverrideSerializer(override).data, status=status.HTTP_201_CREATED)


class OverrideApproveView(generics.GenericAPIView[Acceptance]):
    serializer_class = DecisionSerializer

    @extend_schema(
        request=None,
        responses={201: DecisionSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Approve the pending override: a buyer approver or admin other than the "
        "requester; the reservation is accepted",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        override = _pending(request, reservation, "approve_override")
        decision = override_services.override_approve(override=override, user=api_user(request))
        return Response(DecisionSerializer(decision).data, status=status.HTTP_201_CREATED)


class OverrideDeclineView(generics.GenericAPIView[OverrideRequest]):
    serializer_class = OverrideSerializer

    @extend_schema(
        request=DeclineSerializer,
        responses={200: OverrideSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Decline the pending override with a reason: a buyer approver or admin other "
        "than the requester",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = DeclineSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        override = _pending(request, reservation, "decline_override")
        declined = override_services.override_decline(
            override=override, user=api_user(request), reason=serializer.validated_data["reason"]
        )
        return Response(OverrideSerializer(declined).data)
