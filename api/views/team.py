"""Team evaluation (buyers only): my own view of a request's bids, and every view's ranking."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import api_user
from api.serializers.team import EvaluatorViewSerializer, TeamEvaluationSerializer
from api.views.requests import request_for_buyer
from evaluation import comparison
from evaluation.models import AwardBasis, EvaluatorView
from evaluation.team.recombine import JUDGED
from evaluation.team.selectors import ViewRanking, scored_from_columns, team_evaluation
from evaluation.team.services import JudgementInput, evaluator_view_save


def _mine(view: EvaluatorView | None, request_weights: dict[str, Any]) -> dict[str, Any]:
    if view is None:
        return {"weights": request_weights, "judgements": [], "updated_at": None}
    return {
        "weights": view.weights,
        "judgements": [
            {"bid": j.bid_id, "criterion": j.criterion, "score": j.score, "comment": j.comment}
            for j in view.judgements.all()
        ],
        "updated_at": view.updated_at,
    }


class MyEvaluatorView(APIView):
    @extend_schema(
        responses=EvaluatorViewSerializer,
        summary="My own weights and ratings on a request (buyers); the request's weights "
        "until I save mine",
    )
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        view = (
            EvaluatorView.objects.filter(request=req, evaluator=api_user(request))
            .prefetch_related("judgements")
            .first()
        )
        return Response(EvaluatorViewSerializer(_mine(view, req.weights)).data)

    @extend_schema(
        request=EvaluatorViewSerializer,
        responses=EvaluatorViewSerializer,
        summary="Save my own weights and ratings (1-5, with a comment) on a request (buyers)",
    )
    def put(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = EvaluatorViewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        view = evaluator_view_save(
            capacity_request=req,
            user=api_user(request),
            weights=data["weights"],
            judgements=[
                JudgementInput(j["bid"], j["criterion"], j["score"], j["comment"])
                for j in data["judgements"]
                if j["criterion"] in JUDGED
            ],
        )
        return Response(EvaluatorViewSerializer(_mine(view, req.weights)).data)


def _ranking(view: ViewRanking) -> dict[str, Any]:
    return {
        "view": view.choice,
        "kind": view.kind,
        "label": view.label,
        "weights": view.weights,
        "ranking": [
            {
                "bid": int(p.key),
                "name": p.name,
                "rank": p.rank,
                "total": p.total,
                "unrated": list(p.unjudged),
            }
            for p in view.placed
        ],
        "remarks": [vars(r) for r in view.remarks],
    }


class TeamEvaluationView(APIView):
    @extend_schema(
        responses=TeamEvaluationSerializer,
        summary="Every evaluator's ranking, the consensus, the disagreement and the view the "
        "award followed (buyers)",
    )
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        cmp = comparison.comparison_for_buyer(capacity_request=req)
        body: dict[str, Any] = {"state": cmp.state, "views": [], "disagreement": None}
        if cmp.columns:
            team = team_evaluation(capacity_request=req, bids=scored_from_columns(cmp.columns))
            body.update(views=[_ranking(v) for v in team.views], disagreement=team.disagreement)
        basis = AwardBasis.objects.filter(request=req).first()
        body["award_basis"] = (
            {
                "view": basis.view,
                "label": basis.label,
                "first_in_view": basis.first_in_view,
                "followed": basis.followed,
            }
            if basis
            else None
        )
        return Response(TeamEvaluationSerializer(body).data)
