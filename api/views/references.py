"""`/requests/{id}/fixture/references/`: the fixture's reference runs — the buyer's CPU dry run
or a run from another cluster — listed for everyone who reads the fixture, attached by the
buyer; `/fixture-references/{id}/file/` downloads one as uploaded."""

from __future__ import annotations

from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance.models import FixtureReference
from acceptance.selectors import fixtures as selectors
from acceptance.services.reference import fixture_reference_upload
from api.errors import fields_renamed
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user
from api.serializers.references import (
    FixtureReferenceSerializer,
    FixtureReferenceUploadSerializer,
)
from api.views.requests import request_for_buyer, request_for_org


class FixtureReferenceListView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        responses=FixtureReferenceSerializer(many=True),
        summary="The fixture's reference runs, newest first (everyone who reads the fixture)",
    )
    def get(self, request: Request, pk: int) -> Response:
        fixture = selectors.fixture_for_request(capacity_request=request_for_org(request, pk))
        if fixture is None:
            raise Http404
        rows = selectors.fixture_references(fixture=fixture)
        return Response(FixtureReferenceSerializer(rows, many=True).data)

    @extend_schema(
        request={"multipart/form-data": FixtureReferenceUploadSerializer},
        responses={201: FixtureReferenceSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Attach a reference run to the current fixture version (buyers, before the close)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        fixture = selectors.fixture_for_request(capacity_request=req)
        if fixture is None:
            raise Http404
        body = FixtureReferenceUploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with fields_renamed({"source": "kind"}):
            ref = fixture_reference_upload(
                version=selectors.fixture_current_version(fixture=fixture),
                user=api_user(request),
                upload=body.validated_data["file"],
                source=body.validated_data["kind"],
                cluster=body.validated_data["cluster"],
            )
        return Response(FixtureReferenceSerializer(ref).data, status=status.HTTP_201_CREATED)


class FixtureReferenceFileView(APIView):
    @extend_schema(
        responses={(200, "text/plain"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="Download a reference run's file as it was uploaded",
    )
    def get(self, request: Request, pk: int) -> FileResponse:
        ref = FixtureReference.objects.select_related("fixture_version__fixture__lot").filter(pk=pk)
        found = ref.first()
        if found is None:
            raise Http404
        # 404 for outsiders (a lot's own fixture is its request's)
        request_for_org(request, found.fixture_version.fixture.capacity_request.pk)
        return FileResponse(
            found.file.open("rb"),
            as_attachment=True,
            filename=found.original_name,
            content_type="text/plain; charset=utf-8",
        )
