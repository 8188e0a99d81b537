"""Contract annexes that concern the caller: the buyer sees all, the awarded provider its own."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annexes import selectors as selectors_annex
from annexes.models import Annex
from annexes.services import annex_request
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_org
from api.serializers.annexes import AnnexJobSerializer, AnnexRequestSerializer, AnnexSerializer


class AnnexListView(generics.ListAPIView[Annex]):
    serializer_class = AnnexSerializer
    filterset_fields = ["kind"]
    ordering_fields = ["version", "created_at", "kind"]

    def get_queryset(self) -> QuerySet[Annex]:
        if getattr(self, "swagger_fake_view", False):
            return Annex.objects.none()
        req, kinds = selectors_annex.annex_request_for_org(
            org=api_org(self.request), pk=self.kwargs["pk"]
        )
        return selectors_annex.annex_list(capacity_request=req, kinds=kinds)

    @extend_schema(
        request=AnnexRequestSerializer,
        responses={202: AnnexJobSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Generate an annex version (rendered by a worker; poll the job)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req, kinds = selectors_annex.annex_request_for_org(org=api_org(request), pk=pk)
        body = AnnexRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        kind = body.validated_data["kind"]
        if kind not in kinds:
            raise Http404
        reservation = selectors_annex.annex_reservation_for(
            access=kinds, kind=kind, reservation_id=body.validated_data["reservation"]
        )
        job = annex_request(
            capacity_request=req,
            kind=kind,
            user=request.user,  # type: ignore[arg-type]
            period=body.validated_data["period"],
            reservation=reservation,
        )
        job.refresh_from_db()
        return Response(AnnexJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class AnnexJobView(APIView):
    @extend_schema(responses={200: AnnexJobSerializer}, summary="The state of an annex render")
    def get(self, request: Request, pk: int) -> Response:
        job = selectors_annex.annex_job_for_org(org=api_org(request), pk=pk)
        return Response(AnnexJobSerializer(job).data)


class AnnexPdfView(APIView):
    @extend_schema(
        responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="Download an issued annex (PDF)",
    )
    def get(self, request: Request, pk: int) -> FileResponse:
        annex = selectors_annex.annex_get_for_org(org=api_org(request), pk=pk)
        return FileResponse(
            annex.pdf.open("rb"),
            as_attachment=True,
            filename=annex.filename,
            content_type="application/pdf",
        )
