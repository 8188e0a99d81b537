"""`/api/v1/requests/{id}/questions/` and addendum acknowledgements: the clarification channel.

Providers invited to the request ask and read their own questions and the published ones; its
buyer reads all of them with the asker and answers. Everyone else: 404."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.permissions import api_user, org_of_kind, provider_org
from api.serializers.clarifications import (
    AcknowledgementSerializer,
    AnswerWriteSerializer,
    ClarificationQuestionSerializer,
    ClarificationQuestionWriteSerializer,
)
from api.views.requests import request_for_buyer, request_for_org
from bids import clarification_selectors as cs
from bids import services
from bids.models import AddendumAcknowledgement, Question


def _row(request: Request, pk: int, question: Question) -> dict[str, object]:
    req = request_for_org(request, pk)
    rows = cs.question_rows(capacity_request=req, org=org_of_kind(request))
    return ClarificationQuestionSerializer(next(r for r in rows if r.id == question.pk)).data


class QuestionListView(generics.GenericAPIView[Question]):
    serializer_class = ClarificationQuestionSerializer
    queryset = Question.objects.none()  # the schema's model; reads go through the selector
    filter_backends: list[Any] = []  # every row the reader may see, in number order
    pagination_class = None

    @extend_schema(
        responses=ClarificationQuestionSerializer(many=True),
        summary="Questions on a request: the buyer's all (with the asker), a provider's own and "
        "the published ones (asker null unless its own)",
    )
    def get(self, request: Request, pk: int) -> Response:
        req = request_for_org(request, pk)
        rows = cs.question_rows(capacity_request=req, org=org_of_kind(request))
        return Response(ClarificationQuestionSerializer(rows, many=True).data)

    @extend_schema(
        request=ClarificationQuestionWriteSerializer,
        responses={201: ClarificationQuestionSerializer},
        summary="Ask the buyer a question (invited providers, open request)",
    )
    def post(self, request: Request, pk: int) -> Response:
        org = provider_org(request)
        req = request_for_org(request, pk)
        body = ClarificationQuestionWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        question = services.question_ask(
            capacity_request=req,
            provider=org,
            user=api_user(request),
            text=body.validated_data["text"],
        )
        return Response(_row(request, pk, question), status=status.HTTP_201_CREATED)


class QuestionAnswerView(generics.GenericAPIView[Question]):
    serializer_class = ClarificationQuestionSerializer
    queryset = Question.objects.none()

    @extend_schema(
        request=AnswerWriteSerializer,
        responses=ClarificationQuestionSerializer,
        summary="Answer a question privately, or publish it to every invitee without the "
        "asker (with bid_deadline or summary: an addendum, confirm: true)",
    )
    def post(self, request: Request, pk: int, number: int) -> Response:
        req = request_for_buyer(request, pk)
        question = cs.question_get_for_buyer(capacity_request=req, number=number)
        body = AnswerWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        services.question_answer(
            question=question,
            user=api_user(request),
            answer=data["answer"],
            publish=data["publish"],
            title=data["title"],
            bid_deadline=data["bid_deadline"],
            summary=data["summary"],
            confirmed=data["confirm"],
            published_text=data["published_text"],
        )
        return Response(_row(request, pk, question))


class AddendumAcknowledgeView(generics.GenericAPIView[AddendumAcknowledgement]):
    serializer_class = AcknowledgementSerializer
    queryset = AddendumAcknowledgement.objects.none()

    @extend_schema(
        request=None,
        responses=AcknowledgementSerializer,
        summary="Acknowledge addendum N for the acting provider (needed before its next submit)",
    )
    def post(self, request: Request, pk: int, number: int) -> Response:
        org = provider_org(request)
        req = request_for_org(request, pk)
        addendum = cs.addendum_get(capacity_request=req, number=number)
        ack = services.addendum_acknowledge(addendum=addendum, provider=org, user=api_user(request))
        return Response(AcknowledgementSerializer(ack).data)
