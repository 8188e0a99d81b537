"""The incident page's other moves by API, through the same services with the same parties:
an S2 opened from step times, the restart on fewer nodes (S3), the change log (one party
proposes, the other approves or declines, an approved change is applied), the provider's repair
estimate, sign-off disputes, and the ticket PDF. Both parties to the reservation reach each;
everyone else gets 404; a move the party or role may not make answers 403, one the state refuses
409 (`incidents.lifecycle.INCIDENT`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance.selectors import burnin as reservation_selectors
from annexes.ticket import incident_ticket_bytes
from api import selectors as api_selectors
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.incident_record import (
    ChangeApplySerializer,
    ChangeDecideSerializer,
    ChangeLogEntrySerializer,
    ChangeProposeSerializer,
    EstimateWriteSerializer,
    FewerNodesSerializer,
    RepairEstimateSerializer,
    SignoffDisputeSerializer,
    SignoffDisputeWriteSerializer,
    StepTimesResultSerializer,
    StepTimesUploadSerializer,
    step_times_result,
)
from api.serializers.incidents import IncidentSerializer
from incidents import selectors as sel
from incidents import services
from incidents.lifecycle import incident_move
from incidents.models import ChangeLogEntry, ChecklistDispute, Incident, RepairEstimate
from incidents.services import opening
from incidents.services import record as record_services


def _incident(request: Request, pk: int) -> Incident:
    return sel.incident_get(org_ids=[org_of_kind(request).pk], pk=pk)


class StepTimesOpenView(generics.GenericAPIView[Incident]):
    serializer_class = StepTimesResultSerializer
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": StepTimesUploadSerializer},
        responses={201: StepTimesResultSerializer, 200: StepTimesResultSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload per-rank step times: a sustained rise by the terms' definition opens an "
        "S2 (201); anything else is stored with what was found and opens nothing (200)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = reservation_selectors.reservation_get(
            org_ids=[org_of_kind(request).pk], pk=pk
        )
        body = StepTimesUploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        row = opening.step_times_upload(
            reservation=reservation,
            user=api_user(request),
            upload=data["file"],
            rank_map=data.get("rank_map"),
            nodes=data.get("nodes", ""),
            summary=data.get("summary", ""),
        )
        if row.error:  # stored, but unreadable: the file's own fault, named
            raise ValidationError({"file": [row.error]})
        code = status.HTTP_201_CREATED if row.incident_id else status.HTTP_200_OK
        return Response(StepTimesResultSerializer(step_times_result(row)).data, status=code)


class FewerNodesView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=FewerNodesSerializer,
        responses=IncidentSerializer,
        summary="Record that the job restarted on fewer nodes (an S3: when, and on how many)",
    )
    def post(self, request: Request, pk: int) -> Response:
        incident = _incident(request, pk)
        body = FewerNodesSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        opening.incident_fewer_nodes(
            incident=incident, user=api_user(request), **body.validated_data
        )
        return Response(IncidentSerializer(_incident(request, pk)).data)


class ChangeListView(generics.ListAPIView[ChangeLogEntry]):
    """The incident's change log, first proposed first; POST proposes a change."""

    serializer_class = ChangeLogEntrySerializer
    ordering_fields = ["proposed_at", "status"]

    def get_queryset(self) -> QuerySet[ChangeLogEntry]:
        if getattr(self, "swagger_fake_view", False):
            return ChangeLogEntry.objects.none()
        incident = _incident(self.request, self.kwargs["pk"])
        return api_selectors.incident_change_list(incident=incident)

    @extend_schema(
        request=ChangeProposeSerializer,
        responses={201: ChangeLogEntrySerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Propose a configuration change or a workaround; the other party approves or "
        "declines it",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incident = _incident(request, pk)
        body = ChangeProposeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entry = record_services.change_propose(
            incident=incident, user=api_user(request), **body.validated_data
        )
        return Response(ChangeLogEntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class ChangeDecideView(generics.GenericAPIView[ChangeLogEntry]):
    serializer_class = ChangeLogEntrySerializer

    @extend_schema(
        request=ChangeDecideSerializer,
        responses=ChangeLogEntrySerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Approve or decline (with a note) the other party's proposed change",
    )
    @idempotent
    def post(self, request: Request, pk: int, change: int) -> Response:
        incident = _incident(request, pk)
        body = ChangeDecideSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entry = record_services.change_decide(
            incident=incident,
            user=api_user(request),
            entry=change,
            approve=body.validated_data["decision"] == "approve",
            note=body.validated_data["note"],
        )
        return Response(ChangeLogEntrySerializer(entry).data)


class ChangeApplyView(generics.GenericAPIView[ChangeLogEntry]):
    serializer_class = ChangeLogEntrySerializer

    @extend_schema(
        request=ChangeApplySerializer,
        responses=ChangeLogEntrySerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Record an approved change as applied, with the checks rerun after it",
    )
    @idempotent
    def post(self, request: Request, pk: int, change: int) -> Response:
        incident = _incident(request, pk)
        body = ChangeApplySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        entry = record_services.change_apply(
            incident=incident, user=api_user(request), entry=change, **body.validated_data
        )
        return Response(ChangeLogEntrySerializer(entry).data)


class EstimateListView(generics.ListAPIView[RepairEstimate]):
    """Every revision of the provider's repair estimate, the latest first; POST a new one."""

    serializer_class = RepairEstimateSerializer
    ordering_fields = ["revision", "posted_at"]

    def get_queryset(self) -> QuerySet[RepairEstimate]:
        if getattr(self, "swagger_fake_view", False):
            return RepairEstimate.objects.none()
        incident = _incident(self.request, self.kwargs["pk"])
        return api_selectors.incident_estimate_list(incident=incident)

    @extend_schema(
        request=EstimateWriteSerializer,
        responses={201: RepairEstimateSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Post the repair estimate (the provider): cause class, parts, ETA, confidence; "
        "each post is the next revision and the buyer is notified",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incident = _incident(request, pk)
        # The party first: a buyer's post is refused as the buyer's, whatever its body says.
        incident_move(incident, "estimate", user=api_user(request))
        body = EstimateWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        estimate = record_services.estimate_post(
            incident=incident, user=api_user(request), **body.validated_data
        )
        return Response(RepairEstimateSerializer(estimate).data, status=status.HTTP_201_CREATED)


class SignoffDisputeListView(generics.ListAPIView[ChecklistDispute]):
    """Disputed sign-offs, oldest first: each keeps the note it disputed; POST disputes one."""

    serializer_class = SignoffDisputeSerializer
    ordering_fields = ["at"]

    def get_queryset(self) -> QuerySet[ChecklistDispute]:
        if getattr(self, "swagger_fake_view", False):
            return ChecklistDispute.objects.none()
        incident = _incident(self.request, self.kwargs["pk"])
        return api_selectors.incident_signoff_dispute_list(incident=incident)

    @extend_schema(
        request=SignoffDisputeWriteSerializer,
        responses={201: SignoffDisputeSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Dispute the other party's sign-off with a reason; the item is open again",
    )
    @idempotent
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        incident = _incident(request, kwargs["pk"])
        body = SignoffDisputeWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        dispute = services.incident_dispute(
            incident=incident, user=api_user(request), **body.validated_data
        )
        return Response(SignoffDisputeSerializer(dispute).data, status=status.HTTP_201_CREATED)


class TicketPdfView(APIView):
    @extend_schema(
        responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="The incident ticket as a PDF: ids, window, rank map, NCCL output, step times, "
        "events and the change log",
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        incident = _incident(request, pk)
        response = HttpResponse(incident_ticket_bytes(incident), content_type="application/pdf")
        response["Content-Disposition"] = (
            f'attachment; filename="incident-{incident.pk}-ticket.pdf"'
        )
        return response
