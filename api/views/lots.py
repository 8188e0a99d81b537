"""`/api/v1/requests/<id>/lots/`: a request's lots; buyers add, change and remove them while the
request is a draft. Whoever may read the request (its buyer, an invited provider once
published) may read its lots."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user
from api.serializers.lots import LotSerializer, LotWriteSerializer
from api.views.requests import request_for_buyer, request_for_org
from bids import services
from bids.lots import lot_get, lot_list
from bids.models import Lot


class LotListView(generics.ListAPIView[Lot]):
    serializer_class = LotSerializer
    pagination_class = None  # a request's lots are few and read together

    def get_queryset(self) -> QuerySet[Lot]:
        if getattr(self, "swagger_fake_view", False):
            return Lot.objects.none()
        req = request_for_org(self.request, self.kwargs["pk"])
        return lot_list(capacity_request=req).select_related("request")

    @extend_schema(
        request=LotWriteSerializer,
        responses={201: LotSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Add a lot to a draft request (buyers); it gets the next number",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = LotWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        lot = services.lot_add(
            capacity_request=req, user=api_user(request), data=serializer.validated_data
        )
        return Response(LotSerializer(lot).data, status=status.HTTP_201_CREATED)


class LotDetailView(generics.GenericAPIView[Lot]):
    serializer_class = LotSerializer

    @extend_schema(summary="One lot of a request, by its number")
    def get(self, request: Request, pk: int, number: int) -> Response:
        lot = lot_get(capacity_request=request_for_org(request, pk), number=number)
        return Response(LotSerializer(lot).data)

    @extend_schema(
        request=LotWriteSerializer,
        responses=LotSerializer,
        summary="Change a lot of a draft request (buyers)",
    )
    def patch(self, request: Request, pk: int, number: int) -> Response:
        lot = lot_get(capacity_request=request_for_buyer(request, pk), number=number)
        serializer = LotWriteSerializer(lot, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        lot = services.lot_update(lot=lot, user=api_user(request), data=serializer.validated_data)
        return Response(LotSerializer(lot).data)

    @extend_schema(
        responses={204: None},
        summary="Remove a lot from a draft request (buyers); later lots move up one number",
    )
    def delete(self, request: Request, pk: int, number: int) -> Response:
        lot = lot_get(capacity_request=request_for_buyer(request, pk), number=number)
        services.lot_remove(lot=lot, user=api_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
