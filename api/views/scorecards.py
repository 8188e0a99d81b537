"""`GET /api/v1/providers/{id}/scorecard/`: the provider's own card, or a buyer's rows with it."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.filters import PAGE, page_number
from api.permissions import org_of_kind
from api.serializers.scorecards import ScorecardSerializer, scorecard_data
from scorecards import selectors


class ScorecardView(APIView):
    @extend_schema(
        parameters=[PAGE],
        responses=ScorecardSerializer,
        summary="A provider's scorecard (the provider: every customer; a buyer: its own rows)",
    )
    def get(self, request: Request, pk: int) -> Response:
        viewer = org_of_kind(request)
        provider = selectors.scorecard_provider(pk=pk, viewer=viewer)
        card = selectors.scorecard_for(
            provider=provider,
            viewer=viewer,
            now=timezone.now(),
            page=page_number(request),
        )
        return Response(ScorecardSerializer(scorecard_data(card)).data)
