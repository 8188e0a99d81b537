"""Reservations after the award: burn-in runs (both parties), the buyer's accept or reject."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import Acceptance, BurnInRun, Reservation
from acceptance.selectors import burnin as sel
from acceptance.services import award as award_services
from acceptance.services import burnin as burnin_services
from api import selectors as api_selectors
from api.errors import fields_renamed
from api.filters import RESERVATION_ORDERING, ReservationFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, buyer_org, org_of_kind
from api.serializers.reservations import (
    AcceptSerializer,
    DecisionSerializer,
    RejectSerializer,
    ReservationSerializer,
    RunCreateSerializer,
    RunSerializer,
)


def _reservation(request: Request, pk: int) -> Reservation:
    return sel.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _as_buyer(request: Request, pk: int) -> Reservation:
    reservation = _reservation(request, pk)
    if not sel.is_buyer_of(reservation, buyer_org(request)):
        raise Http404
    return reservation


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
        summary="Accept on a passing gate, or override with a reason (buyers); starts the clock",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _as_buyer(request, pk)
        serializer = AcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run = sel.run_get(
            org_ids=[reservation.request.buyer_id], pk=serializer.validated_data["run"]
        )
        with fields_renamed({"reason": "override_reason"}):
            decision = award_services.reservation_accept(
                reservation=reservation,
                run=run,
                user=api_user(request),
                override_reason=serializer.validated_data.get("override_reason", ""),
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
        reservation = _as_buyer(request, pk)
        serializer = RejectSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        decision = award_services.reservation_reject(
            reservation=reservation,
            user=api_user(request),
            reason=serializer.validated_data["reason"],
        )
        return Response(DecisionSerializer(decision).data, status=status.HTTP_201_CREATED)
