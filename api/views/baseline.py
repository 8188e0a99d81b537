"""The baseline step time S2 is measured against, by API as on the baseline page: the buyer
proposes its own job's, an approver or admin of the provider accepts or rejects it. Both
parties to the reservation read it; everyone else gets 404."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import Reservation
from acceptance.selectors import burnin as reservation_selectors
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.baseline import BaselineProposeSerializer, BaselineSerializer
from api.serializers.incidents import ReasonSerializer, SeverityAcceptSerializer
from incidents import selectors as sel
from incidents.models import BaselineProposal
from incidents.services import baseline as svc


def _reservation(request: Request, pk: int) -> Reservation:
    return reservation_selectors.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _show(reservation: Reservation, code: int = status.HTTP_200_OK) -> Response:
    value, source = sel.step_time_baseline(reservation)
    proposals = BaselineProposal.objects.filter(reservation=reservation).select_related(
        "proposed_by", "decided_by"
    )
    data = {"step_time_s": value, "basis": source, "proposals": list(proposals)}
    return Response(BaselineSerializer(data).data, status=code)


class BaselineView(generics.GenericAPIView[Reservation]):
    serializer_class = BaselineSerializer
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(summary="The baseline step time in force, and the buyer's proposals")
    def get(self, request: Request, pk: int) -> Response:
        return _show(_reservation(request, pk))

    @extend_schema(
        request={"multipart/form-data": BaselineProposeSerializer},
        responses={201: BaselineSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="The buyer proposes its own job's step time as the baseline (multipart `file`, "
        "`reason`); nothing changes until the provider accepts",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = BaselineProposeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        svc.baseline_propose(
            reservation=reservation, user=api_user(request),
            upload=serializer.validated_data["file"], reason=serializer.validated_data["reason"],
        )  # fmt: skip
        return _show(reservation, status.HTTP_201_CREATED)


class BaselineAcceptView(generics.GenericAPIView[Reservation]):
    serializer_class = BaselineSerializer

    @extend_schema(
        request=SeverityAcceptSerializer,
        responses=BaselineSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Accept the buyer's proposed baseline (the provider's approver or admin)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = SeverityAcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        svc.baseline_answer(
            reservation=reservation, user=api_user(request), accept=True,
            reason=serializer.validated_data.get("reason", ""),
        )  # fmt: skip
        return _show(reservation)


class BaselineRejectView(generics.GenericAPIView[Reservation]):
    serializer_class = BaselineSerializer

    @extend_schema(
        request=ReasonSerializer,
        responses=BaselineSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Reject the buyer's proposed baseline with a reason (the provider's approver "
        "or admin); the baseline in force stays",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = _reservation(request, pk)
        serializer = ReasonSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        svc.baseline_answer(
            reservation=reservation, user=api_user(request), accept=False,
            reason=serializer.validated_data["reason"],
        )  # fmt: skip
        return _show(reservation)
