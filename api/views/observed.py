"""What the workload observed, by API, as on the Observed page: upload the scheduler's records,
node snapshots and result files (`curl -F kind=kueue -F file=@events.json`), list them, read
one's state and error, retry one that could not be read, and read the figures worked from them.
Both parties to the reservation (observed.lifecycle says which roles write); everyone else 404."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import Reservation
from acceptance.selectors import burnin as reservation_selectors
from annexes.document.outcome import outcome_periods
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.parsers import JSONParser
from api.permissions import api_user, org_of_kind
from api.serializers.observed import (
    ObservedFiguresSerializer,
    ObservedUploadSerializer,
    ObservedUploadWriteSerializer,
    ResultSerializer,
)
from observed import selectors as sel
from observed import services
from observed.models import ObservedUpload, ResultDefinition

PERIOD = OpenApiParameter(
    "period",
    OpenApiTypes.STR,
    required=False,
    description="A month of the term to date, `2026-03`; empty or absent: the whole term.",
)


def _reservation(request: Request, pk: int) -> Reservation:
    return reservation_selectors.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _upload(request: Request, pk: int) -> ObservedUpload:
    return sel.upload_get(org_ids=[org_of_kind(request).pk], pk=pk)


class ReservationObservedView(generics.ListAPIView[ObservedUpload]):
    """The observed files of a reservation, newest first; POST uploads one."""

    serializer_class = ObservedUploadSerializer
    parser_classes = [MultiPartParser, FormParser]
    ordering_fields = ["uploaded_at", "original_name", "state", "kind"]

    def get_queryset(self) -> QuerySet[ObservedUpload]:
        if getattr(self, "swagger_fake_view", False):
            return ObservedUpload.objects.none()
        return sel.uploads_for(reservation=_reservation(self.request, self.kwargs["pk"]))

    @extend_schema(
        request={"multipart/form-data": ObservedUploadWriteSerializer},
        responses={201: ObservedUploadSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload a scheduler record, node snapshot or result file (multipart `kind`, "
        "`file`; accepted reservations, both parties); stored first, then read by a worker: "
        "poll /observed/{id}/ for its state, or its error with the line and field",
    )
    @idempotent
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        reservation = _reservation(request, kwargs["pk"])
        serializer = ObservedUploadWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        row = services.observed_upload(
            reservation=reservation,
            user=api_user(request),
            upload=serializer.validated_data["file"],
            kind=serializer.validated_data["kind"],
        )
        row.refresh_from_db()  # in-process tasks have already read it
        return Response(ObservedUploadSerializer(row).data, status=status.HTTP_201_CREATED)


class ObservedDetailView(generics.GenericAPIView[ObservedUpload]):
    serializer_class = ObservedUploadSerializer

    @extend_schema(summary="One observed file: its state, or why it cannot be read (line, field)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(ObservedUploadSerializer(_upload(request, pk)).data)


class ObservedRetryView(generics.GenericAPIView[ObservedUpload]):
    serializer_class = ObservedUploadSerializer

    @extend_schema(
        request=None,
        responses={202: ObservedUploadSerializer},
        summary="Read a file that could not be read again (409 for one read or being read)",
    )
    def post(self, request: Request, pk: int) -> Response:
        upload = services.observed_retry(upload=_upload(request, pk), user=api_user(request))
        return Response(ObservedUploadSerializer(upload).data, status=status.HTTP_202_ACCEPTED)


class ObservedFiguresView(generics.GenericAPIView[ObservedUpload]):
    serializer_class = ObservedFiguresSerializer

    @extend_schema(
        parameters=[PERIOD],
        summary="The figures worked from the read files: the four capacities per day, start "
        "receipts against the promised p95, reclaims against the terms, each missed promise "
        "with its diagnostic packet, and the cost per accepted result",
    )
    def get(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        period = request.query_params.get("period", "")
        if period and period not in outcome_periods(reservation):
            months = ", ".join(p for p in outcome_periods(reservation) if p) or "none yet"
            problem = f"The term has no month {period[:20]!r} to date; its months: {months}."
            raise exceptions.ValidationError({"period": [problem]})
        report = sel.observed_report(reservation=reservation, period=period)
        return Response(ObservedFiguresSerializer(report).data)


class ObservedResultView(generics.GenericAPIView[ResultDefinition]):
    serializer_class = ResultSerializer
    parser_classes = [JSONParser]

    @extend_schema(
        request=ResultSerializer,
        responses=ResultSerializer,
        summary="Name the result the cost is counted in (the buyer; 403 for the provider): "
        "the figures' `cost` is then per accepted result",
    )
    def put(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = ResultSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        row = services.result_define(
            reservation=reservation,
            user=api_user(request),
            unit=serializer.validated_data["unit"],
            expected_per_gpu_hour=serializer.validated_data["expected_per_gpu_hour"],
        )
        return Response(ResultSerializer(row).data)
