"""Failed-run bundles by API: upload from the cluster, then read the state and the analysis."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.selectors import burnin as sel
from api import selectors as api_selectors
from api.errors import FIELD_PROBLEMS, error_body, fields_renamed
from api.filters import FAILED_RUN_ORDERING, FailedRunFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.failures import (
    FailedRunFieldsSerializer,
    FailedRunSerializer,
    FailedRunUploadSerializer,
)
from engine import failures
from incidents import selectors as incident_selectors
from incidents import services
from incidents.models import FailedRun

FIRST_PARAMETER = OpenApiParameter(
    "first",
    str,
    enum=list(failures.FIRST_CHOICES),
    description="Which failure heads a restarted job's analysis: `ending` (default), the one "
    "that ended the job, with each earlier attempt's first failure in `attempts`; or `ever`, "
    "the first failure of the run, with the later attempts' in `attempts`.",
)


class FailedRunUploadView(generics.GenericAPIView[FailedRun]):
    serializer_class = FailedRunSerializer
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": FailedRunUploadSerializer},
        responses={201: FailedRunSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Upload a failed run's bundle (accepted reservations, both parties); "
        "poll /failed-runs/{id}/ for the analysis",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        reservation = sel.reservation_get(org_ids=[org_of_kind(request).pk], pk=pk)
        files = request.FILES.getlist("file")
        if not files:
            return Response(
                error_body(
                    FIELD_PROBLEMS,
                    {"file": ["Send the archive or the logs as multipart field 'file'."]},
                ),
                status=status.HTTP_400_BAD_REQUEST,
            )
        data: Any = request.data
        fields = FailedRunFieldsSerializer(
            data={"world_size": data.get("world_size") or None, "label": data.get("label", "")}
        )
        fields.is_valid(raise_exception=True)
        with fields_renamed({"bundle": "file"}):  # the browser form calls the files `bundle`
            run = services.failed_run_upload(
                reservation=reservation,
                user=api_user(request),
                uploads=files,
                rank_map=request.FILES.get("rank_map"),
                world_size=fields.validated_data.get("world_size"),
                label=fields.validated_data.get("label", ""),
            )
        run.refresh_from_db()  # in-process tasks have already analysed it
        return Response(FailedRunSerializer(run).data, status=status.HTTP_201_CREATED)


class FailedRunListView(generics.ListAPIView[FailedRun]):
    """Failed-run bundles on reservations your organisation is a party to."""

    serializer_class = FailedRunSerializer
    filterset_class = FailedRunFilter
    ordering_fields = FAILED_RUN_ORDERING

    def get_queryset(self) -> QuerySet[FailedRun]:
        if getattr(self, "swagger_fake_view", False):
            return FailedRun.objects.none()
        return api_selectors.failed_run_list(org_ids=[org_of_kind(self.request).pk])


class FailedRunDetailView(generics.GenericAPIView[FailedRun]):
    serializer_class = FailedRunSerializer

    @extend_schema(
        summary="A failed run: its state, files and (once analysed) the analysis",
        parameters=[FIRST_PARAMETER],
    )
    def get(self, request: Request, pk: int) -> Response:
        run = incident_selectors.failed_run_get(org_ids=[org_of_kind(request).pk], pk=pk)
        first = request.query_params.get("first", "ending")
        if first not in failures.FIRST_CHOICES:
            problem = (
                "Choose 'ending' (the failure that ended the job) or 'ever' (the first failure "
                f"of the run), not {first[:40]!r}."
            )
            return Response(
                error_body(FIELD_PROBLEMS, {"first": [problem]}),
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(FailedRunSerializer(run, context={"first": first}).data)


class FailedRunRetryView(generics.GenericAPIView[FailedRun]):
    serializer_class = FailedRunSerializer

    @extend_schema(
        request=None,
        responses={202: FailedRunSerializer},
        summary="Queue a crashed (error) or unreadable analysis again",
    )
    def post(self, request: Request, pk: int) -> Response:
        run = incident_selectors.failed_run_get(org_ids=[org_of_kind(request).pk], pk=pk)
        run = services.failed_run_retry(failed_run=run, user=api_user(request))
        return Response(FailedRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)
