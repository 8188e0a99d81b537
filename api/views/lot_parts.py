"""`/api/v1/requests/<id>/lots/<number>/fixture/` and `…/terms/`: a lot's own fixture and
handoff terms. Whoever may read the request reads them; its buyer gives a lot its own (POST)
or returns it to the request's (DELETE) while the request is a draft, and edits them (PATCH)
as the request's own are edited. A lot without its own answers 404 saying it shares the
request's."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance import services as fixture_services
from acceptance.models import Fixture
from acceptance.selectors import fixtures as fixture_selectors
from acceptance.selectors import lot_parts
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user
from api.serializers.parts import (
    FixtureChangeSerializer,
    FixtureCreateSerializer,
    FixtureVersionSerializer,
    TermsSerializer,
)
from api.views.parts import bundle_response, fixture_change
from api.views.requests import request_for_buyer, request_for_org
from bids.lots import lot_get
from bids.models import Lot
from contracts import services as terms_services
from contracts.models import HandoffTerms


def _lot(request: Request, pk: int, number: int, *, buyer: bool = False) -> Lot:
    req = request_for_buyer(request, pk) if buyer else request_for_org(request, pk)
    return lot_get(capacity_request=req, number=number)


def _shares(lot: Lot, part: str) -> exceptions.NotFound:
    return exceptions.NotFound(
        f"Lot {lot.number} shares the request's {part}: GET /api/v1/requests/{lot.request_id}/"
        f"{part}/. Its buyer gives it its own with POST on this URL while the request is a draft."
    )


def _fixture(lot: Lot) -> Fixture:
    fixture = lot_parts.own_fixture(lot)
    if fixture is None:
        raise _shares(lot, "fixture")
    return fixture


def _terms(lot: Lot) -> HandoffTerms:
    terms = lot_parts.own_terms(lot)
    if terms is None:
        raise _shares(lot, "terms")
    return terms


def lot_fixture_payload(lot: Lot, fixture: Fixture) -> Any:
    version = fixture_selectors.fixture_current_version(fixture=fixture)
    return SimpleNamespace(
        number=version.number,
        template=version.template,
        spec_sha256=version.spec_sha256,
        spec=version.spec,
        manifest=version.manifest,
        created_at=version.created_at,
        version_numbers=list(fixture.versions.order_by("number").values_list("number", flat=True)),
        bundle_url=reverse("api:request-lot-fixture-bundle", args=[lot.request_id, lot.number]),
    )


class LotFixtureView(APIView):
    @extend_schema(responses=FixtureVersionSerializer, summary="A lot's own fixture, current")
    def get(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number)
        return Response(FixtureVersionSerializer(lot_fixture_payload(lot, _fixture(lot))).data)

    @extend_schema(
        request=FixtureCreateSerializer,
        responses={201: FixtureVersionSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Give a draft's lot its own fixture from a template, for the lot's size (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number, buyer=True)
        serializer = FixtureCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fixture_services.lot_fixture_own(
            lot=lot, user=api_user(request), template=serializer.validated_data["template"]
        )
        data = FixtureVersionSerializer(lot_fixture_payload(lot, _fixture(lot))).data
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=FixtureChangeSerializer,
        responses=FixtureVersionSerializer,
        summary="Edit a lot's own fixture by dotted path (buyers); thresholds need a reason",
    )
    def patch(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number, buyer=True)
        fixture = fixture_change(request, _fixture(lot))
        return Response(FixtureVersionSerializer(lot_fixture_payload(lot, fixture)).data)

    @extend_schema(
        request=None,
        responses={204: None},
        summary="A draft's lot shares the request's fixture again (buyers)",
    )
    def delete(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number, buyer=True)
        fixture_services.lot_fixture_share(lot=lot, user=api_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class LotFixtureBundleView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "version", OpenApiTypes.INT, description="A version number; default: current"
            )
        ],
        responses={(200, "application/gzip"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="Download a lot's own runnable fixture bundle (.tar.gz)",
    )
    def get(self, request: Request, pk: int, number: int) -> HttpResponse:
        lot = _lot(request, pk, number)
        return bundle_response(
            request,
            _fixture(lot),
            whose=f"Lot {lot.number}'s fixture",
            prefix=f"clusterbid-lot{lot.number}",
        )


class LotTermsView(APIView):
    @extend_schema(responses=TermsSerializer, summary="A lot's own handoff terms")
    def get(self, request: Request, pk: int, number: int) -> Response:
        return Response(TermsSerializer(_terms(_lot(request, pk, number))).data)

    @extend_schema(
        request=None,
        responses={201: TermsSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Give a draft's lot its own terms, starting from the request's (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number, buyer=True)
        terms = terms_services.lot_terms_own(lot=lot, user=api_user(request))
        return Response(TermsSerializer(terms).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=TermsSerializer, responses=TermsSerializer, summary="Edit a lot's own terms"
    )
    def patch(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number, buyer=True)
        terms = _terms(lot)
        serializer = TermsSerializer(terms, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        saved = terms_services.terms_update(
            terms=terms, user=api_user(request), data=dict(serializer.validated_data)
        )
        return Response(TermsSerializer(saved).data)

    @extend_schema(
        request=None,
        responses={204: None},
        summary="A draft's lot shares the request's terms again (buyers)",
    )
    def delete(self, request: Request, pk: int, number: int) -> Response:
        lot = _lot(request, pk, number, buyer=True)
        terms_services.lot_terms_share(lot=lot, user=api_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
