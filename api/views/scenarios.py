"""`/api/v1/requests/<id>/scenarios/`: the buyer's award scenarios. Buyer members only (404
for anyone else); none while the bids are sealed. Creating or re-solving queues the solve."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user
from api.serializers.scenarios import (
    ScenarioAwardSerializer,
    ScenarioAwardWriteSerializer,
    ScenarioSerializer,
    ScenarioWriteSerializer,
)
from api.views.requests import request_for_buyer
from evaluation.models import AwardScenario, ScenarioAward
from evaluation.scenario_award import scenario_award
from evaluation.scenario_selectors import scenario_get, scenario_list
from evaluation.scenario_services import scenario_create, scenario_solve_queue


class ScenarioListView(generics.ListAPIView[AwardScenario]):
    serializer_class = ScenarioSerializer

    def get_queryset(self) -> QuerySet[AwardScenario]:
        if getattr(self, "swagger_fake_view", False):
            return AwardScenario.objects.none()
        return scenario_list(capacity_request=request_for_buyer(self.request, self.kwargs["pk"]))

    @extend_schema(
        request=ScenarioWriteSerializer,
        responses={201: ScenarioSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Define an award scenario (buyers, once bids open); it is queued for solving",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = ScenarioWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        scenario = scenario_create(
            capacity_request=req, user=api_user(request), data=serializer.validated_data
        )
        return Response(ScenarioSerializer(scenario).data, status=status.HTTP_201_CREATED)


class ScenarioDetailView(generics.GenericAPIView[AwardScenario]):
    serializer_class = ScenarioSerializer

    @extend_schema(summary="One award scenario: its rules, status and stored answer")
    def get(self, request: Request, pk: int, sid: int) -> Response:
        scenario = scenario_get(capacity_request=request_for_buyer(request, pk), pk=sid)
        return Response(ScenarioSerializer(scenario).data)


class ScenarioSolveView(generics.GenericAPIView[AwardScenario]):
    serializer_class = ScenarioSerializer

    @extend_schema(
        request=None,
        responses={202: ScenarioSerializer},
        summary="Solve a scenario again (after a failure, or when the bids changed)",
    )
    def post(self, request: Request, pk: int, sid: int) -> Response:
        scenario = scenario_get(capacity_request=request_for_buyer(request, pk), pk=sid)
        scenario = scenario_solve_queue(scenario=scenario, user=api_user(request))
        return Response(ScenarioSerializer(scenario).data, status=status.HTTP_202_ACCEPTED)


class ScenarioAwardView(generics.GenericAPIView[ScenarioAward]):
    serializer_class = ScenarioAwardSerializer

    @extend_schema(
        request=ScenarioAwardWriteSerializer,
        responses={201: ScenarioAwardSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Award a solved scenario (buyers): one reservation per lot and provider",
    )
    @idempotent
    def post(self, request: Request, pk: int, sid: int) -> Response:
        scenario = scenario_get(capacity_request=request_for_buyer(request, pk), pk=sid)
        serializer = ScenarioAwardWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        award = scenario_award(
            scenario=scenario,
            user=api_user(request),
            justification=serializer.validated_data["justification"],
        )
        body = ScenarioAwardSerializer(award).data
        return Response(body, status=status.HTTP_201_CREATED)
