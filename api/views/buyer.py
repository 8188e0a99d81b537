"""What a buyer reads and decides on a request: bids with scores, the comparison, the award."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, status
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import conditional
from api.filters import REQUEST_BID_ORDERING, RequestBidFilter
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, buyer_org
from api.renderers import PrintedJSONRenderer
from api.serializers.bids import BuyerBidSerializer
from api.serializers.comparison import ComparisonSerializer, comparison_payload, rounds_data
from api.serializers.reservations import AwardSerializer, ReservationSerializer
from api.views.requests import request_for_buyer
from bids import selectors
from bids.models import Bid, BidRevision
from evaluation import comparison, rounds
from evaluation.debrief import award_with_debrief
from evaluation.models import ScoringRun
from evaluation.pilots import pilot_section, section_json
from evaluation.rounds import RoundComparison


class RequestBidListView(generics.ListAPIView[Bid]):
    """Submitted bids with their latest revision and score. A sealed request lists none."""

    serializer_class = BuyerBidSerializer
    filterset_class = RequestBidFilter
    ordering_fields = REQUEST_BID_ORDERING

    def get_queryset(self) -> QuerySet[Bid]:
        if getattr(self, "swagger_fake_view", False):
            return Bid.objects.none()
        req = request_for_buyer(self.request, self.kwargs["pk"])
        self.comparison = comparison.comparison_for_buyer(capacity_request=req)
        return selectors.bid_list_for_buyer(capacity_request=req).prefetch_related(
            Prefetch("revisions", queryset=BidRevision.objects.order_by("-number"), to_attr="revs")
        )

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        view = getattr(self, "comparison", None)
        if view is not None:
            context["scores"] = {c.revision.bid_id: c.score for c in view.columns}
        return context

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        bids = args[0] if args else []
        kwargs.setdefault("context", self.get_serializer_context())
        kwargs["context"]["revisions"] = {b.pk: b.revs[0] for b in bids if getattr(b, "revs", None)}
        return super().get_serializer(*args, **kwargs)


class ComparisonView(APIView):
    # The matrix is written as stored printed (PrintedJSON); the browsable API prints it anew.
    renderer_classes = [PrintedJSONRenderer, BrowsableAPIRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "labels",
                OpenApiTypes.STR,
                enum=["anonymous"],
                description="anonymous: name bids 'Bid A', 'Bid B' (until the award)",
            )
        ],
        responses=ComparisonSerializer,
        summary="The comparison matrix as JSON (buyers); sealed requests show nothing",
    )
    def get(self, request: Request, pk: int) -> Any:
        req = request_for_buyer(request, pk)  # 404 for all but the buyer
        labels = request.query_params.get("labels")
        if labels not in (None, "anonymous"):
            raise exceptions.ValidationError(
                {"labels": [f"Give 'anonymous', or leave it out for names, not {labels[:40]!r}."]}
            )
        anonymise = labels == "anonymous"
        printed = isinstance(request.accepted_renderer, PrintedJSONRenderer)
        view = comparison.comparison_for_buyer(
            capacity_request=req, anonymise=anonymise, with_json=printed
        )
        final = rounds.round_comparison(capacity_request=req, anonymise=view.anonymised)
        pilots = _pilots(request, view)
        tag = conditional.etag(request, buyer_org(request), *comparison_inputs(view, final), pilots)
        if (unchanged := conditional.not_modified(request, tag)) is not None:
            return unchanged
        payload = comparison_payload(view, final, pilots, printed=printed)
        return conditional.tagged(Response(payload), tag)


def _pilots(request: Request, view: comparison.Comparison) -> dict[str, Any] | None:
    """The pilot section, read afresh (a pilot's figures change without a new scoring run)."""
    if view.state == comparison.SEALED:
        return None
    section = pilot_section(
        capacity_request=view.request,
        user=api_user(request),
        names={col.bid_id: col.name for col in view.columns},
        anonymise=view.anonymised,
        use_verified=view.uses_verified,
    )
    return section_json(section, anonymise=view.anonymised)


def comparison_inputs(view: comparison.Comparison, final: RoundComparison | None) -> tuple:
    """What the payload is printed from, short of printing it: the request's row, where scoring
    stands, which finished run is shown, the fingerprint of what its stored presentation read
    (provider names, acknowledgements, agreed terms), and the rounds."""

    def run(r: ScoringRun | None) -> tuple | None:
        return None if r is None else (r.pk, r.status, r.stale, r.finished_at)

    return (
        conditional.row_values(view.request),
        view.state,
        view.anonymised,
        run(view.current_run),
        run(view.shown_run),
        view.presentation.fingerprint if view.presentation is not None else None,
        rounds_data(final, anonymised=view.anonymised),
    )


class AwardView(APIView):
    @extend_schema(
        request=AwardSerializer,
        responses={201: ReservationSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Award the request to one submitted bid (buyers): a reservation is created",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        org = buyer_org(request)
        req = request_for_buyer(request, pk)
        serializer = AwardSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        bid = selectors.bid_get_for_org(org=org, pk=serializer.validated_data["bid"])
        reservation = award_with_debrief(
            capacity_request=req,
            bid=bid,
            user=api_user(request),
            justification=serializer.validated_data["justification"],
            view=serializer.validated_data["view"],
        )
        return Response(ReservationSerializer(reservation).data, status=status.HTTP_201_CREATED)
