"""A reservation's availability, credits and maintenance windows by API, as on its page: both
parties read; the provider announces; a buyer approver or admin agrees to short notice;
everyone else gets 404."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import Reservation
from acceptance.selectors import burnin as reservation_selectors
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.delivery import (
    AvailabilitySerializer,
    MaintenanceAnnounceSerializer,
    MaintenanceWindowSerializer,
)
from delivery import selectors, services
from delivery.models import MaintenanceWindow


def _reservation(request: Request, pk: int) -> Reservation:
    return reservation_selectors.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


class AvailabilityView(generics.GenericAPIView[Reservation]):
    serializer_class = AvailabilitySerializer

    @extend_schema(
        summary="Availability per month and node, SLA credits, lost GPU-hours and the realised "
        "cost per useful GPU-hour, each with its formula"
    )
    def get(self, request: Request, pk: int) -> Response:
        delivery = selectors.delivery_for(reservation=_reservation(request, pk))
        data = {
            "reservation": pk,
            "terms_source": delivery.terms_source,
            "lanes": delivery.lanes,
            "report": delivery.report,
            "standing": {str(k): v for k, v in delivery.standing.items()},
            "report_if_counted": delivery.report_if_counted,
        }
        return Response(AvailabilitySerializer(data).data)


class MaintenanceListView(generics.ListAPIView[MaintenanceWindow]):
    """The reservation's maintenance windows, by start; POST announces one (the provider)."""

    serializer_class = MaintenanceWindowSerializer
    ordering_fields = ["starts_at", "announced_at"]

    def get_queryset(self) -> QuerySet[MaintenanceWindow]:
        if getattr(self, "swagger_fake_view", False):
            return MaintenanceWindow.objects.none()
        reservation = _reservation(self.request, self.kwargs["pk"])
        return selectors.maintenance_list(reservation=reservation).order_by("starts_at", "pk")

    @extend_schema(
        request=MaintenanceAnnounceSerializer,
        responses={201: MaintenanceWindowSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Announce maintenance (provider); with less notice than the terms require it "
        "counts as downtime unless the buyer agrees",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = MaintenanceAnnounceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        window = services.maintenance_announce(
            reservation=reservation, user=api_user(request), **serializer.validated_data
        )
        return Response(MaintenanceWindowSerializer(window).data, status=status.HTTP_201_CREATED)


class MaintenanceAgreeView(generics.GenericAPIView[MaintenanceWindow]):
    serializer_class = MaintenanceWindowSerializer

    @extend_schema(
        request=None,
        responses={200: MaintenanceWindowSerializer},
        summary="Agree to short-notice maintenance (buyer approver or admin)",
    )
    def post(self, request: Request, pk: int) -> Response:
        reservation_id = (
            MaintenanceWindow.objects.filter(pk=pk).values_list("reservation_id", flat=True).first()
        )
        if reservation_id is None:
            raise Http404
        reservation = _reservation(request, reservation_id)
        window = selectors.maintenance_get(reservation=reservation, pk=pk)
        window = services.maintenance_agree(window=window, user=api_user(request))
        return Response(MaintenanceWindowSerializer(window).data)
