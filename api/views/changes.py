"""Planned changes with their release canaries: the provider announces one on a reservation
(`POST /reservations/{id}/changes/`, both parties list them there); both parties read a change
(`GET /changes/{id}/`); the provider uploads the canary's evidence from the cluster
(`/changes/{id}/canary/evidence/`, as for burn-in evidence); the buyer accepts or objects
(`POST /changes/{id}/answer/`). A rival provider and outsiders get 404 on every route."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import BurnInRun, Reservation
from acceptance.selectors import burnin as reservation_selectors
from acceptance.selectors.canary import canary_run
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.parsers import JSONParser
from api.permissions import api_user, org_of_kind
from api.serializers.changes import (
    ChangeAnnounceSerializer,
    ChangeAnswerSerializer,
    PlannedChangeSerializer,
)
from api.views.evidence import RunEvidenceView
from delivery import change_selectors as sel
from delivery import selectors as delivery_selectors
from delivery.changes import change_announce, change_answer
from delivery.models import PlannedChange

CANARY_DOWNLOAD = "delivery:canary-evidence-download"


def _change(request: Request, pk: int) -> PlannedChange:
    return sel.change_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _reservation(request: Request, pk: int) -> Reservation:
    return reservation_selectors.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _body(change: PlannedChange) -> dict[str, object]:
    views = sel.change_views(changes=[change])
    return PlannedChangeSerializer(change, context={"views": views}).data


class ReservationChangesView(generics.ListAPIView[PlannedChange]):
    """A reservation's planned changes, by window, each as `GET /changes/{id}/` shows it (the
    canary's verdict and its checks beside the accepted burn-in's); POST announces one (the
    provider's team). A page of changes costs the same number of queries for one change as for
    a full page: the canaries' runs, files and checks are read for the whole page at once."""

    serializer_class = PlannedChangeSerializer
    parser_classes = [JSONParser]

    def get_queryset(self) -> QuerySet[PlannedChange]:
        if getattr(self, "swagger_fake_view", False):
            return PlannedChange.objects.none()
        return sel.change_list(reservation=_reservation(self.request, self.kwargs["pk"]))

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "views": getattr(self, "_views", {})}

    @extend_schema(
        summary="A reservation's planned changes with their canary verdicts",
        description="Each change as GET /changes/{id}/ shows it, its canary's comparison with "
        "the accepted burn-in included; the page's canaries are read together, so a full page "
        "costs no more queries than one change.",
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset())) or []
        # The canaries are read once, for the whole page and for it only.
        self._views = sel.change_views(changes=page)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=ChangeAnnounceSerializer,
        responses={201: PlannedChangeSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Announce a planned driver, firmware or image change inside an agreed maintenance "
        "window, with the nodes its canary runs on first (the provider's team)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = ChangeAnnounceSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        # An id that is not one of this reservation's windows is the service's "name the window".
        window = (
            delivery_selectors.maintenance_list(reservation=reservation)
            .filter(pk=data.pop("window"))
            .first()
        )
        change = change_announce(
            reservation=reservation, user=api_user(request), window=window, **data
        )
        return Response(_body(change), status=status.HTTP_201_CREATED)


class ChangeDetailView(generics.GenericAPIView[PlannedChange]):
    serializer_class = PlannedChangeSerializer

    @extend_schema(summary="One planned change: its window, canary verdict and comparison")
    def get(self, request: Request, pk: int) -> Response:
        return Response(_body(_change(request, pk)))


class ChangeAnswerView(generics.GenericAPIView[PlannedChange]):
    serializer_class = PlannedChangeSerializer
    parser_classes = [JSONParser]

    @extend_schema(
        request=ChangeAnswerSerializer,
        responses=PlannedChangeSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Accept a planned change, or object with a reason, before its window (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        change = _change(request, pk)
        serializer = ChangeAnswerSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        change = change_answer(
            change=change, user=api_user(request), accept=data["decision"] == "accept",
            reason=data.get("reason", ""),
        )  # fmt: skip
        return Response(_body(change))


class CanaryEvidenceView(RunEvidenceView):
    """A canary's evidence: uploaded, parsed and checked exactly as a burn-in run's."""

    download_view = CANARY_DOWNLOAD

    def _run(self, request: Request) -> BurnInRun:
        return canary_run(_change(request, self.kwargs["pk"]).canary)
