"""Planned changes with their release canaries: both parties read a change
(`GET /changes/{id}/`); the provider uploads the canary's evidence from the cluster
(`/changes/{id}/canary/evidence/`, as for burn-in evidence); the buyer accepts or objects
(`POST /changes/{id}/answer/`). A rival provider and outsiders get 404 on every route."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from acceptance.models import BurnInRun
from acceptance.selectors.canary import canary_run
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.parsers import JSONParser
from api.permissions import api_user, org_of_kind
from api.serializers.changes import ChangeAnswerSerializer, PlannedChangeSerializer
from api.views.evidence import RunEvidenceView
from delivery import change_selectors as sel
from delivery.changes import change_answer
from delivery.models import PlannedChange

CANARY_DOWNLOAD = "delivery:canary-evidence-download"


def _change(request: Request, pk: int) -> PlannedChange:
    return sel.change_get(org_ids=[org_of_kind(request).pk], pk=pk)


def _body(change: PlannedChange) -> dict[str, object]:
    views = {change.pk: sel.change_view(change=change)}
    return PlannedChangeSerializer(change, context={"views": views}).data


class ChangeDetailView(generics.GenericAPIView[PlannedChange]):
    serializer_class = PlannedChangeSerializer

    @extend_schema(summary="One planned change: its window, canary verdict and comparison")
    def get(self, request: Request, pk: int) -> Response:
        return Response(_body(_change(request, pk)))


class ChangeAnswerView(generics.GenericAPIView[PlannedChange]):
    serializer_class = PlannedChangeSerializer
    parser_classes = [JSONParser]

    @extend_schema(
        request=ChangeAnswerSerializer,
        responses=PlannedChangeSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Accept a planned change, or object with a reason, before its window (buyers)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        change = _change(request, pk)
        serializer = ChangeAnswerSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        change = change_answer(
            change=change, user=api_user(request), accept=data["decision"] == "accept",
            reason=data.get("reason", ""),
        )  # fmt: skip
        return Response(_body(change))


class CanaryEvidenceView(RunEvidenceView):
    """A canary's evidence: uploaded, parsed and checked exactly as a burn-in run's."""

    download_view = CANARY_DOWNLOAD

    def _run(self, request: Request) -> BurnInRun:
        return canary_run(_change(request, self.kwargs["pk"]).canary)
