"""Approval by policy over the API: a buyer member asks for a publish or an award the policy
holds back; approvers approve (as themselves, or for a colleague who delegated to them for the
day) or decline; the asker or an administrator withdraws. The approval that completes one makes
the move in the asker's name, as on the request's page. Buyer members only (404 for anyone
else); the roles are the policy's (`bids.services.approvals`)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, buyer_org
from api.serializers.approvals import (
    ApprovalAskSerializer,
    ApprovalDeclineSerializer,
    ApprovalGiveSerializer,
    ApprovalRequestSerializer,
    ApprovedSerializer,
)
from api.views.requests import request_for_buyer
from bids import selectors as bid_selectors
from bids.approval_selectors import (
    approval_request_get,
    approval_requests_for,
    buyer_member,
)
from bids.models import ApprovalAction, ApprovalRequest, CapacityRequest
from bids.services.approvals import approval_ask, approval_decline, approval_withdraw
from evaluation.approvals import approve, award_ask


def _asked(request: Request, pk: int) -> ApprovalRequest:
    return approval_request_get(buyer=buyer_org(request), pk=pk)


def _printed(asked: ApprovalRequest) -> dict[str, object]:
    # Read back with its approvals, as the list prints it.
    fresh = approval_requests_for(capacity_request=asked.request).get(pk=asked.pk)
    return ApprovalRequestSerializer(fresh).data


class RequestApprovalListView(generics.ListAPIView[ApprovalRequest]):
    """The request's approval requests, newest first, each with the approvals given."""

    serializer_class = ApprovalRequestSerializer

    def get_queryset(self) -> QuerySet[ApprovalRequest]:
        if getattr(self, "swagger_fake_view", False):
            return ApprovalRequest.objects.none()
        capacity_request = request_for_buyer(self.request, self.kwargs["pk"])
        return approval_requests_for(capacity_request=capacity_request)

    @extend_schema(
        request=ApprovalAskSerializer,
        responses={201: ApprovalRequestSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Ask the approvers for a publish or an award the approval policy holds back "
        "(409 when the policy needs no approver, or one is already under way)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        capacity_request = request_for_buyer(request, pk)
        body = ApprovalAskSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        asked = _ask(request, capacity_request, **body.validated_data)
        return Response(_printed(asked), status=status.HTTP_201_CREATED)


def _ask(
    request: Request,
    capacity_request: CapacityRequest,
    *,
    action: str,
    bid: int | None,
    justification: str,
    view: str,
) -> ApprovalRequest:
    user = api_user(request)
    if action == ApprovalAction.PUBLISH:
        if bid is not None:
            raise ValidationError({"bid": ["Publishing names no bid: leave `bid` out."]})
        return approval_ask(capacity_request=capacity_request, action=action, user=user)
    if bid is None:
        raise ValidationError({"bid": ["Name the bid to award."]})
    awarded = bid_selectors.bid_get_for_org(org=buyer_org(request), pk=bid)
    return award_ask(
        capacity_request=capacity_request,
        bid=awarded,
        user=user,
        justification=justification,
        view=view,
    )


class ApprovalApproveView(generics.GenericAPIView[ApprovalRequest]):
    serializer_class = ApprovedSerializer

    @extend_schema(
        request=ApprovalGiveSerializer,
        responses={200: ApprovedSerializer},
        summary="Approve (approvers, or a colleague they delegated to for today; never the "
        "asker): the approval that completes it makes the move in the asker's name",
    )
    def post(self, request: Request, pk: int) -> Response:
        asked = _asked(request, pk)
        body = ApprovalGiveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = api_user(request)
        result = approve(
            asked=asked, user=user, on_behalf_of=_principal(asked, user, body.validated_data)
        )
        data = {"approval": _printed(result.asked), "done": result.done, "problem": result.problem}
        return Response(data)


def _principal(asked: ApprovalRequest, user: User, data: dict[str, int | None]) -> User:
    """Whom the approval counts for: the caller, or the colleague named by id."""
    wanted = data["on_behalf_of"]
    if wanted is None:
        return user
    principal = buyer_member(asked=asked, user_id=wanted)
    if principal is None:
        raise ValidationError(
            {"on_behalf_of": [f"No member of {asked.request.buyer.name} has the id {wanted}."]}
        )
    return principal


class ApprovalDeclineView(generics.GenericAPIView[ApprovalRequest]):
    serializer_class = ApprovalRequestSerializer

    @extend_schema(
        request=ApprovalDeclineSerializer,
        responses={200: ApprovalRequestSerializer},
        summary="Decline with a reason (approvers): the asker is told why",
    )
    def post(self, request: Request, pk: int) -> Response:
        asked = _asked(request, pk)
        body = ApprovalDeclineSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        asked = approval_decline(asked=asked, user=api_user(request), **body.validated_data)
        return Response(_printed(asked))


class ApprovalWithdrawView(generics.GenericAPIView[ApprovalRequest]):
    serializer_class = ApprovalRequestSerializer

    @extend_schema(
        request=None,
        responses={200: ApprovalRequestSerializer},
        summary="Withdraw an approval request not yet used (the asker or an administrator), "
        "to ask again differently",
    )
    def post(self, request: Request, pk: int) -> Response:
        asked = approval_withdraw(asked=_asked(request, pk), user=api_user(request))
        return Response(_printed(asked))
