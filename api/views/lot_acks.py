"""`/api/v1/bids/{id}/lots/{n}/acknowledgement/`: a bid's acknowledgement of a lot's own fixture
and terms (a lot that shares the request's has nothing of its own: 404 saying so)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance import services as acceptance_services
from acceptance.selectors import lot_parts
from acceptance.selectors.lot_parts import LotAckState
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_org, api_user, provider_org
from api.serializers.lot_acks import LotAckSerializer, LotAckWriteSerializer
from bids import selectors as bid_selectors
from bids.lots import lot_get
from bids.models import Bid


def _state(bid: Bid, number: int) -> LotAckState:
    lot = lot_get(capacity_request=bid.request, number=number)
    found = next((s for s in lot_parts.lot_acknowledgements(bid=bid) if s.lot == lot), None)
    if found is None:
        raise exceptions.NotFound(
            f"Lot {number} shares the request's fixture and terms: it has nothing of its own "
            "to acknowledge."
        )
    return found


def _payload(bid: Bid, state: LotAckState) -> dict[str, Any]:
    ack = state.ack
    return {
        "lot": state.lot.number,
        "fixture_version": state.fixture.current_number if state.fixture else None,
        "terms_revision": state.terms.version if state.terms else None,
        "offered": state.lot.number in lot_parts.offered_lot_numbers(bid),
        "current": state.current,
        "stale_reasons": state.stale_reasons,
        "acknowledgement": None
        if ack is None
        else {**ack.record(), "by": ack.by.get_username() if ack.by else None},
    }


class LotAcknowledgementView(APIView):
    @extend_schema(
        responses=LotAckSerializer,
        summary="A bid's acknowledgement of a lot's own fixture and terms (its provider, and "
        "the buyer once the bid is visible)",
    )
    def get(self, request: Request, pk: int, number: int) -> Response:
        bid = bid_selectors.bid_get_for_org(org=api_org(request), pk=pk)  # 404 for all others
        return Response(LotAckSerializer(_payload(bid, _state(bid, number))).data)

    @extend_schema(
        request=LotAckWriteSerializer,
        responses={201: LotAckSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Acknowledge a lot's own fixture and terms as they stand now (the bid's "
        "provider); a bid offering on the lot submits only once this covers the current ones",
    )
    @idempotent
    def post(self, request: Request, pk: int, number: int) -> Response:
        bid = bid_selectors.bid_get_for_provider(org=provider_org(request), pk=pk)
        state = _state(bid, number)
        body = LotAckWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        acceptance_services.acknowledgement_submit(
            bid=bid,
            user=api_user(request),
            status=data["status"],
            exceptions=[dict(row) for row in data.get("exceptions", [])],
            provider_owner_name=data.get("provider_owner_name"),
            provider_owner_contact=data.get("provider_owner_contact"),
            lot=state.lot,
        )
        fresh = _state(Bid.objects.select_related("request").get(pk=bid.pk), number)
        return Response(LotAckSerializer(_payload(bid, fresh)).data, status=status.HTTP_201_CREATED)
