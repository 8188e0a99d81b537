"""Pilots before the award: the buyer invites a shortlisted bid (`POST /requests/{id}/pilots/`)
and chooses whether scoring uses verified figures (`PUT /requests/{id}/pilot-scoring/`); both
parties read the pilot and upload its evidence (`/pilots/{id}/evidence/`, as for burn-in
evidence). A rival provider and outsiders get 404 on every pilot route."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import BurnInRun, Evidence, Pilot, PilotScoring
from acceptance.selectors import pilot as sel
from acceptance.services import burnin as burnin_services
from acceptance.services.pilot import pilot_invite, pilot_scoring_set
from api.filters import PILOT_ORDERING, PilotFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.parsers import JSONParser
from api.permissions import api_user, org_of_kind
from api.serializers.evidence import EvidenceSerializer
from api.serializers.pilots import PilotInviteSerializer, PilotScoringSerializer, PilotSerializer
from api.views.evidence import RunEvidenceView
from api.views.requests import request_for_buyer
from bids.models import Bid
from bids.selectors import latest_revisions

PILOT_DOWNLOAD = "pilots:evidence-download"


def _pilot(request: Request, pk: int) -> Pilot:
    return sel.pilot_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _context(pilots: list[Pilot]) -> dict[str, Any]:
    """The claims each pilot's figures stand beside: its bid's latest submitted revision and
    the fixture floors it acknowledged."""
    return {
        "revisions": latest_revisions([p.bid for p in pilots]),
        "floors": sel.acknowledged_floors([p.bid_id for p in pilots]),
    }


class PilotListView(generics.ListAPIView[Pilot]):
    """Pilots your organisation is a party to: as the buyer, or as the invited provider."""

    serializer_class = PilotSerializer
    filterset_class = PilotFilter
    ordering_fields = PILOT_ORDERING

    def get_queryset(self) -> QuerySet[Pilot]:
        if getattr(self, "swagger_fake_view", False):
            return Pilot.objects.none()
        return sel.pilot_list(org_ids=[org_of_kind(self.request).pk])

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        pilots = list(args[0]) if args else []
        kwargs["context"] = {**self.get_serializer_context(), **_context(pilots)}
        return super().get_serializer(pilots, *args[1:], **kwargs)


class PilotDetailView(generics.GenericAPIView[Pilot]):
    serializer_class = PilotSerializer

    @extend_schema(summary="One pilot: its window, run, checks state and verified figures")
    def get(self, request: Request, pk: int) -> Response:
        pilot = _pilot(request, pk)
        return Response(PilotSerializer(pilot, context=_context([pilot])).data)


class RequestPilotsView(generics.GenericAPIView[Pilot]):
    serializer_class = PilotSerializer
    parser_classes = [JSONParser]

    @extend_schema(
        request=PilotInviteSerializer,
        responses={201: PilotSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Invite a shortlisted bid to a pilot before the award (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = PilotInviteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if req.bids_hidden_from_buyer:
            raise Http404
        try:
            bid = Bid.objects.get(request=req, pk=data["bid"])
        except Bid.DoesNotExist:
            raise Http404 from None
        pilot = pilot_invite(
            bid=bid,
            user=api_user(request),
            starts_on=data["starts_on"],
            ends_on=data["ends_on"],
            instructions=data["instructions"],
        )
        body = PilotSerializer(pilot, context=_context([pilot])).data
        return Response(body, status=status.HTTP_201_CREATED)


class PilotScoringView(generics.GenericAPIView[PilotScoring]):
    serializer_class = PilotScoringSerializer
    parser_classes = [JSONParser]

    @extend_schema(summary="Whether scoring uses the pilots' verified figures (buyers)")
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        return Response({"use_verified": sel.uses_verified(capacity_request=req)})

    @extend_schema(
        request=PilotScoringSerializer,
        responses=PilotScoringSerializer,
        summary="Score on the pilots' verified figures, or on the claims; the bids are re-scored",
    )
    def put(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = PilotScoringSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        setting = pilot_scoring_set(
            capacity_request=req,
            user=api_user(request),
            use_verified=serializer.validated_data["use_verified"],
        )
        return Response({"use_verified": setting.use_verified})


class PilotEvidenceView(RunEvidenceView):
    """A pilot's evidence: uploaded, parsed and checked exactly as a burn-in run's."""

    download_view = PILOT_DOWNLOAD

    def _run(self, request: Request) -> BurnInRun:
        return sel.pilot_run(_pilot(request, self.kwargs["pk"]))


class PilotEvidenceRetryView(generics.GenericAPIView[Evidence]):
    serializer_class = EvidenceSerializer

    @extend_schema(
        request=None,
        responses={202: EvidenceSerializer},
        summary="Queue a pilot's evidence file for parsing again",
    )
    def post(self, request: Request, pk: int) -> Response:
        evidence = sel.pilot_evidence_get(org_ids=[org_of_kind(request).pk], pk=pk)
        evidence = burnin_services.evidence_retry(evidence=evidence, user=api_user(request))
        body = EvidenceSerializer(evidence, context={"download_view": PILOT_DOWNLOAD}).data
        return Response(body, status=status.HTTP_202_ACCEPTED)
