"""Incidents by API, as on the incident page: open one from an analysed failed run, propose a
severity change (the other party accepts or rejects it), acknowledge or dispute the other
party's incident, record the response and the restore, upload recovery evidence, sign
checklist items off, set the lost-time marks and close. Both parties to the reservation may
do each of these, as in the browser; everyone else gets 404."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.selectors import burnin as reservation_selectors
from api import selectors as api_selectors
from api.filters import (
    INCIDENT_EVIDENCE_ORDERING,
    INCIDENT_ORDERING,
    IncidentEvidenceFilter,
    IncidentFilter,
)
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.common import ConfirmSerializer
from api.serializers.incidents import (
    IncidentEvidenceSerializer,
    IncidentEvidenceUploadSerializer,
    IncidentOpenSerializer,
    IncidentSerializer,
    IncidentSignalOpenSerializer,
    IncidentSummarySerializer,
    IncidentTimesSerializer,
    ReasonSerializer,
    SeverityAcceptSerializer,
    SeveritySerializer,
    SignoffSerializer,
    SignoffWriteSerializer,
)
from incidents import selectors as sel
from incidents import services
from incidents.models import ChecklistSignoff, Incident, IncidentEvidence
from incidents.services import opening


def _org_ids(request: Request) -> list[int]:
    return [org_of_kind(request).pk]


def _incident(request: Request, pk: int) -> Incident:
    return sel.incident_get(org_ids=_org_ids(request), pk=pk)


def _show(incident: Incident, code: int = status.HTTP_200_OK) -> Response:
    return Response(IncidentSerializer(incident).data, status=code)


class ReservationIncidentListView(generics.ListAPIView[Incident]):
    """The incidents on a reservation (its buyer and awarded provider), newest first; POST opens
    one from the party's own signal."""

    serializer_class = IncidentSummarySerializer
    filterset_class = IncidentFilter
    ordering_fields = INCIDENT_ORDERING

    def get_queryset(self) -> QuerySet[Incident]:
        if getattr(self, "swagger_fake_view", False):
            return Incident.objects.none()
        reservation = reservation_selectors.reservation_get(
            org_ids=_org_ids(self.request), pk=self.kwargs["pk"]
        )
        return api_selectors.incident_list(reservation=reservation)

    @extend_schema(
        request=IncidentSignalOpenSerializer,
        responses={201: IncidentSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Open an incident from your own signal (severity, nodes, UTC window); its "
        "clocks start now and both parties are told",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = reservation_selectors.reservation_get(org_ids=_org_ids(request), pk=pk)
        serializer = IncidentSignalOpenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        incident = opening.incident_open_signal(
            reservation=reservation,
            user=api_user(request),
            severity=data["severity"],
            signal=data["signal"],
            nodes=data["nodes"],
            window_start=data["window_start"],
            window_end=data.get("window_end"),
            summary=data["summary"],
        )
        return _show(incident, status.HTTP_201_CREATED)


class IncidentOpenView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=IncidentOpenSerializer,
        responses={201: IncidentSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Open the incident of an analysed failed run; its clocks start now",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        run = sel.failed_run_get(org_ids=_org_ids(request), pk=pk)
        serializer = IncidentOpenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        incident = services.incident_open(
            failed_run=run,
            user=api_user(request),
            severity=serializer.validated_data.get("severity", ""),
            reason=serializer.validated_data.get("reason", ""),
        )
        return _show(incident, status.HTTP_201_CREATED)


class IncidentDetailView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(summary="An incident: clocks, recovery checklist, lost GPU-hours")
    def get(self, request: Request, pk: int) -> Response:
        return _show(_incident(request, pk))

    @extend_schema(
        request=IncidentTimesSerializer,
        responses=IncidentSerializer,
        summary="Set lost-time marks (UTC) and the GPU count; only the fields sent change",
    )
    def patch(self, request: Request, pk: int) -> Response:
        incident = _incident(request, pk)
        serializer = IncidentTimesSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        incident = services.incident_set_times(
            incident=incident, user=api_user(request), **serializer.validated_data
        )
        return _show(incident)


class IncidentSeverityView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=SeveritySerializer,
        responses={201: IncidentSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Propose a severity change with a reason; the severity and its clocks stay "
        "until an approver or admin of the other party accepts",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incident = _incident(request, pk)
        serializer = SeveritySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.incident_severity_propose(
            incident=incident, user=api_user(request), **serializer.validated_data
        )
        return _show(_incident(request, pk), status.HTTP_201_CREATED)


class IncidentSeverityAcceptView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=SeverityAcceptSerializer,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Accept the other party's proposed severity (an approver or admin); breaches "
        "already recorded stay",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        serializer = SeverityAcceptSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.incident_severity_accept(
            incident=_incident(request, pk),
            user=api_user(request),
            reason=serializer.validated_data.get("reason", ""),
        )
        return _show(_incident(request, pk))


class IncidentSeverityRejectView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=ReasonSerializer,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Reject the other party's proposed severity with a reason (an approver or admin)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        serializer = ReasonSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.incident_severity_reject(
            incident=_incident(request, pk),
            user=api_user(request),
            reason=serializer.validated_data["reason"],
        )
        return _show(_incident(request, pk))


class IncidentAcknowledgeView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=None,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Acknowledge the other party's incident: from now on it counts toward "
        "availability and credits",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incident = services.incident_acknowledge(
            incident=_incident(request, pk), user=api_user(request)
        )
        return _show(_incident(request, incident.pk))


class IncidentDisputeView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=ReasonSerializer,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Dispute the other party's incident with a reason, before its response clock "
        "runs out; the delivery figures then show both readings",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        serializer = ReasonSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.incident_dispute_opening(
            incident=_incident(request, pk),
            user=api_user(request),
            reason=serializer.validated_data["reason"],
        )
        return _show(_incident(request, pk))


class _IncidentMarkView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer
    what = ""

    def _mark(self, request: Request, pk: int) -> Response:
        incident = services.incident_mark(
            incident=_incident(request, pk), user=api_user(request), what=self.what
        )
        return _show(incident)


class IncidentRespondedView(_IncidentMarkView):
    what = "responded"

    @extend_schema(
        request=None,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Record the first response now (once); the response clock stops",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self._mark(request, pk)


class IncidentRestoredView(_IncidentMarkView):
    what = "restored"

    @extend_schema(
        request=None,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Record the restore now (once); the restore clock stops",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        return self._mark(request, pk)


class IncidentEvidenceView(generics.ListCreateAPIView[IncidentEvidence]):
    """Recovery evidence: nccl-tests, dcgmi diag, smoke and pre-incident step times, the
    checkpoint listing and the step log. Each file is stored, then read; `ok` says if it was."""

    serializer_class = IncidentEvidenceSerializer
    parser_classes = [MultiPartParser, FormParser]
    filterset_class = IncidentEvidenceFilter
    ordering_fields = INCIDENT_EVIDENCE_ORDERING

    def get_queryset(self) -> QuerySet[IncidentEvidence]:
        if getattr(self, "swagger_fake_view", False):
            return IncidentEvidence.objects.none()
        incident = _incident(self.request, self.kwargs["pk"])
        return api_selectors.incident_evidence_list(incident=incident)

    @extend_schema(
        request={"multipart/form-data": IncidentEvidenceUploadSerializer},
        responses={201: IncidentEvidenceSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload one recovery evidence file (multipart `kind`, `file`, optional `node`)",
    )
    @idempotent
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        incident = _incident(request, kwargs["pk"])
        serializer = IncidentEvidenceUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        row = services.incident_evidence_upload(
            incident=incident,
            user=api_user(request),
            upload=serializer.validated_data["file"],
            kind=serializer.validated_data["kind"],
            node=serializer.validated_data.get("node", ""),
        )
        return Response(IncidentEvidenceSerializer(row).data, status=status.HTTP_201_CREATED)


class IncidentSignoffView(generics.GenericAPIView[ChecklistSignoff]):
    serializer_class = SignoffSerializer

    @extend_schema(
        request=SignoffWriteSerializer,
        responses={201: SignoffSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Sign a checklist item off with a note (items no evidence can check)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        incident = _incident(request, pk)
        serializer = SignoffWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        signoff = services.incident_signoff(
            incident=incident, user=api_user(request), **serializer.validated_data
        )
        return Response(SignoffSerializer(signoff).data, status=status.HTTP_201_CREATED)


class IncidentCloseView(generics.GenericAPIView[Incident]):
    serializer_class = IncidentSerializer

    @extend_schema(
        request=ConfirmSerializer,
        responses=IncidentSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Close the incident (the buyer confirms: confirm true); refused, naming the "
        "items, until every checklist item passes",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        body = ConfirmSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        incident = services.incident_close(
            incident=_incident(request, pk),
            user=api_user(request),
            confirmed=body.validated_data["confirm"],
        )
        return _show(incident)
