"""A request's fixture (and its bundle), handoff terms, questionnaire and scoring weights."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.http import Http404, HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance import services as fixture_services
from acceptance.bundle import build_bundle
from acceptance.models import Fixture
from acceptance.selectors import fixtures as fixture_selectors
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user
from api.schema import ERROR_REF
from api.serializers.parts import (
    FixtureChangeSerializer,
    FixtureCreateSerializer,
    FixtureVersionSerializer,
    QuestionSetSerializer,
    TermsCreateSerializer,
    TermsSerializer,
)
from api.serializers.requests import WeightsSerializer
from api.views.requests import request_for_buyer, request_for_org
from bids.models import CapacityRequest
from contracts import selectors as terms_selectors
from contracts import services as terms_services
from core.errors import Conflict
from engine.evidence.fixtures.spec import InvalidSpecError
from evaluation.services import request_set_weights
from questionnaire import services as questionnaire_services
from questionnaire.selectors import current_question_set


def fixture_payload(req: CapacityRequest, fixture: Fixture) -> Any:
    version = fixture_selectors.fixture_current_version(fixture=fixture)
    return SimpleNamespace(
        number=version.number,
        template=version.template,
        spec_sha256=version.spec_sha256,
        spec=version.spec,
        manifest=version.manifest,
        created_at=version.created_at,
        version_numbers=list(fixture.versions.order_by("number").values_list("number", flat=True)),
        bundle_url=reverse("api:request-fixture-bundle", args=[req.pk]),
    )


def not_attached(req: CapacityRequest, part: str) -> exceptions.NotFound:
    """A party who may see the request learns that the part is missing, not that it is hidden."""
    return exceptions.NotFound(
        f"Request {req.pk} has no {part} attached yet; its buyer attaches one with "
        f"POST /api/v1/requests/{req.pk}/{part}/."
    )


def _fixture(req: CapacityRequest) -> Fixture:
    fixture = fixture_selectors.fixture_for_request(capacity_request=req)
    if fixture is None:
        raise not_attached(req, "fixture")
    return fixture


def fixture_change(request: Request, fixture: Fixture) -> Fixture:
    """Apply the body's dotted-path changes (thresholds with their reasons) to the fixture, as
    the buyer's edit of the request's or a lot's own; the fixture as saved."""
    serializer = FixtureChangeSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    fixture_services.fixture_save(
        fixture=fixture,
        user=api_user(request),
        changes=serializer.validated_data["changes"],
        reasons=serializer.validated_data.get("reasons") or {},
    )
    fixture.refresh_from_db()
    return fixture


def bundle_response(
    request: Request, fixture: Fixture, *, whose: str = "Fixture", prefix: str = "clusterbid"
) -> HttpResponse:
    """The runnable bundle of the fixture's version `?version=` (default: current) as a
    .tar.gz; 404 for a version that is not a number or not there, 409 naming what an
    incomplete spec lacks. `whose` begins the refusal, `prefix` the file's name."""
    raw = request.query_params.get("version", "")
    if raw and not raw.isdigit():
        raise Http404
    number = int(raw) if raw else fixture.current_number
    version = fixture_selectors.fixture_version_get(fixture=fixture, number=number)
    try:
        archive, _manifest = build_bundle(version.spec)
    except InvalidSpecError as exc:
        raise Conflict(
            f"{whose} version {number} cannot be built into a bundle until it is complete: {exc}."
        ) from None
    response = HttpResponse(archive, content_type="application/gzip")
    name = f"{prefix}-fixture-v{number}-{version.spec_sha256[:12]}.tar.gz"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class FixtureView(APIView):
    @extend_schema(responses=FixtureVersionSerializer, summary="The current fixture version")
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_org(request, pk)
        return Response(FixtureVersionSerializer(fixture_payload(req, _fixture(req))).data)

    @extend_schema(
        request=FixtureCreateSerializer,
        responses={201: FixtureVersionSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Build the fixture from a template (buyers); an existing one starts over",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = FixtureCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fixture_services.fixture_from_template(
            capacity_request=req,
            user=api_user(request),
            template=serializer.validated_data["template"],
            name=serializer.validated_data.get("name") or None,
        )
        data = FixtureVersionSerializer(fixture_payload(req, _fixture(req))).data
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=FixtureChangeSerializer,
        responses=FixtureVersionSerializer,
        summary="Edit the fixture spec by dotted path (buyers); thresholds need a reason",
    )
    def patch(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        fixture = fixture_change(request, _fixture(req))
        return Response(FixtureVersionSerializer(fixture_payload(req, fixture)).data)


class FixtureBundleView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "version", OpenApiTypes.INT, description="A version number; default: current"
            )
        ],
        responses={
            (200, "application/gzip"): OpenApiResponse(OpenApiTypes.BINARY),
            409: OpenApiResponse(
                ERROR_REF, "The version's spec is not complete: `detail` lists what is missing."
            ),
        },
        summary="Download the runnable fixture bundle (.tar.gz)",
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        return bundle_response(request, _fixture(request_for_org(request, pk)))


class TermsView(APIView):
    def _terms(self, req: CapacityRequest) -> Any:
        terms = terms_selectors.terms_for_request(capacity_request=req)
        if terms is None:
            raise not_attached(req, "terms")
        return terms

    @extend_schema(responses=TermsSerializer, summary="The request's handoff terms")
    def get(self, request: Request, pk: int) -> Response:
        return Response(TermsSerializer(self._terms(request_for_org(request, pk))).data)

    @extend_schema(
        request=TermsCreateSerializer,
        responses={201: TermsSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Set the terms from a template (buyers); existing terms are reset to it",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = TermsCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        terms = terms_services.terms_create(
            capacity_request=req,
            user=api_user(request),
            template=serializer.validated_data["template"],
        )
        return Response(TermsSerializer(terms).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=TermsSerializer, responses=TermsSerializer, summary="Edit the terms (buyers)"
    )
    def patch(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        terms = self._terms(req)
        serializer = TermsSerializer(terms, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        saved = terms_services.terms_update(
            terms=terms, user=api_user(request), data=dict(serializer.validated_data)
        )
        return Response(TermsSerializer(saved).data)


class QuestionnaireView(APIView):
    @extend_schema(
        responses=QuestionSetSerializer,
        summary="The questions a bid answers (404 saying so when none is attached)",
    )
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_org(request, pk)
        question_set = current_question_set(capacity_request=req)
        if question_set is None:
            raise not_attached(req, "questionnaire")
        return Response(QuestionSetSerializer(question_set).data)

    @extend_schema(
        request=None,
        responses={201: QuestionSetSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Attach the default incident questionnaire (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        question_set = questionnaire_services.question_set_attach_default(
            capacity_request=req, user=api_user(request)
        )
        return Response(QuestionSetSerializer(question_set).data, status=status.HTTP_201_CREATED)


class WeightsView(APIView):
    @extend_schema(responses=WeightsSerializer, summary="Scoring weights (buyers)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(WeightsSerializer(request_for_buyer(request, pk).weights).data)

    @extend_schema(
        request=WeightsSerializer,
        responses=WeightsSerializer,
        summary="Set the scoring weights (buyers); the bids are re-scored",
    )
    def put(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = WeightsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        req = request_set_weights(
            capacity_request=req, user=api_user(request), weights=serializer.validated_data
        )
        return Response(WeightsSerializer(req.weights).data)
