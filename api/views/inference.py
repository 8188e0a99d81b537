"""Served inference responses by API, as on the Inference page: upload a vLLM serving
benchmark result or a per-request log (`curl -F file=@bench.json`), list them, read one's state,
error line and figures, retry a reading, and read the promise with the latest figures against it.
Both parties to the reservation (inference.lifecycle says which roles write); everyone else 404."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import Reservation
from acceptance.selectors import burnin as reservation_selectors
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.inference import (
    InferenceFiguresSerializer,
    ServedFileSerializer,
    ServedUploadWriteSerializer,
)
from inference import selectors as sel
from inference import services
from inference.models import ServedResponsesFile


def _reservation(request: Request, pk: int) -> Reservation:
    return reservation_selectors.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _file(request: Request, pk: int) -> ServedResponsesFile:
    return sel.served_file_for(org_ids=[org_of_kind(request).pk], pk=pk)


class ReservationServedView(generics.ListAPIView[ServedResponsesFile]):
    """The served-responses files of a reservation, newest first; POST uploads one."""

    serializer_class = ServedFileSerializer
    parser_classes = [MultiPartParser, FormParser]
    ordering_fields = ["uploaded_at", "original_name", "state"]

    def get_queryset(self) -> QuerySet[ServedResponsesFile]:
        if getattr(self, "swagger_fake_view", False):
            return ServedResponsesFile.objects.none()
        return sel.served_files(reservation=_reservation(self.request, self.kwargs["pk"]))

    @extend_schema(
        request={"multipart/form-data": ServedUploadWriteSerializer},
        responses={201: ServedFileSerializer, 200: ServedFileSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload served responses (multipart `file`, optional `label`; accepted "
        "reservations, both parties); stored first, then read against the promise by a "
        "worker: poll /served/{id}/. The same bytes again: 200 with the stored file",
    )
    @idempotent
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        reservation = _reservation(request, kwargs["pk"])
        serializer = ServedUploadWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        row, duplicate = services.served_upload(
            reservation=reservation,
            user=api_user(request),
            upload=serializer.validated_data["file"],
            label=serializer.validated_data["label"],
        )
        row.refresh_from_db()  # in-process tasks have already read it
        code = status.HTTP_200_OK if duplicate else status.HTTP_201_CREATED
        return Response(ServedFileSerializer(row).data, status=code)


class ServedDetailView(generics.GenericAPIView[ServedResponsesFile]):
    serializer_class = ServedFileSerializer

    @extend_schema(
        summary="One served-responses file: its state, its error with the line, or its "
        "figures against the promise"
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(ServedFileSerializer(_file(request, pk)).data)


class ServedRetryView(generics.GenericAPIView[ServedResponsesFile]):
    serializer_class = ServedFileSerializer

    @extend_schema(
        request=None,
        responses={202: ServedFileSerializer},
        summary="Read a file again against the promise (409 while it is queued or being read)",
    )
    def post(self, request: Request, pk: int) -> Response:
        row = services.served_retry(row=_file(request, pk), user=api_user(request))
        return Response(ServedFileSerializer(row).data, status=status.HTTP_202_ACCEPTED)


class InferenceFiguresView(generics.GenericAPIView[ServedResponsesFile]):
    serializer_class = InferenceFiguresSerializer

    @extend_schema(
        summary="The offer's inference promise and the newest read file's figures against it: "
        "TTFT and inter-token p50/p95, throughput, responses within the promise, cost per "
        "response and per million tokens"
    )
    def get(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        revision = reservation.bid_revision
        body = {
            "reservation": reservation.pk,
            "promises_inference": sel.promises_inference(revision),
            "promise": sel.promise_of(revision),
            "files": sel.served_counts(reservation=reservation),
            "latest": sel.latest_read(reservation=reservation),
        }
        return Response(InferenceFiguresSerializer(body).data)
