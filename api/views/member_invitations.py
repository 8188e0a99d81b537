"""Membership by invitation, from a script: the pages' rules (orgs.services) behind the API.

An organisation's administrators list, send and withdraw its invitations
(`/api/v1/members/invitations/`); anyone else is refused with 403. The invited person lists
the open invitations to their own e-mail address and accepts or declines them
(`/api/v1/me/invitations/`); anyone else's is a 404. What an administrator is answered never
says whether an account has the address.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, org_of_kind
from api.serializers.members import (
    JoinedSerializer,
    MemberInvitationSerializer,
    MemberInviteSerializer,
    MyInvitationSerializer,
)
from orgs import selectors, services
from orgs.models import MemberInvitation, Membership, Organization


def _admin_org(request: Request) -> Organization:
    org = org_of_kind(request)
    if not selectors.is_member_admin(org=org, user=request.user):
        raise PermissionDenied(f"Only an administrator of {org.name} manages its invitations.")
    return org


class MemberInvitationListView(generics.ListAPIView[MemberInvitation]):
    """The acting organisation's open invitations, newest first (its administrators)."""

    serializer_class = MemberInvitationSerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[MemberInvitation]:
        if getattr(self, "swagger_fake_view", False):
            return MemberInvitation.objects.none()
        return selectors.invitations_pending(org=_admin_org(self.request))

    @extend_schema(
        summary="Open invitations of the organisation you act for (its administrators); "
        "`expired` ones can no longer be accepted"
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request=MemberInviteSerializer,
        responses={201: MemberInvitationSerializer},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Invite an e-mail address (administrators); the answer is the same whether or "
        "not an account has it, and the person joins only when they accept",
    )
    @idempotent
    def post(self, request: Request) -> Response:
        org = _admin_org(request)
        body = MemberInviteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        invitation = services.invitation_send(
            org=org, user=api_user(request), **body.validated_data
        )
        return Response(MemberInvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)


class MemberInvitationDetailView(generics.GenericAPIView[MemberInvitation]):
    serializer_class = MemberInvitationSerializer

    @extend_schema(responses={204: None}, summary="Withdraw an open invitation (administrators)")
    def delete(self, request: Request, pk: int) -> Response:
        org = _admin_org(request)
        invitation = selectors.invitation_for_admin(org=org, pk=pk)
        services.invitation_withdraw(invitation=invitation, user=api_user(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MyInvitationListView(generics.ListAPIView[MemberInvitation]):
    """The open invitations to the signed-in person's e-mail address, newest first."""

    serializer_class = MyInvitationSerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[MemberInvitation]:
        if getattr(self, "swagger_fake_view", False):
            return MemberInvitation.objects.none()
        return selectors.invitations_for(user=api_user(self.request))

    @extend_schema(summary="Invitations to your e-mail address, to accept or decline")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class MyInvitationAcceptView(generics.GenericAPIView[Membership]):
    serializer_class = JoinedSerializer

    @extend_schema(
        request=None,
        responses={200: JoinedSerializer},
        summary="Accept an invitation: you join as its role (409 once it has expired); where "
        "you act by default does not change",
    )
    def post(self, request: Request, pk: int) -> Response:
        user = api_user(request)
        invitation = selectors.invitation_for_invitee(user=user, pk=pk)
        membership = services.invitation_accept(invitation=invitation, user=user)
        return Response(JoinedSerializer(membership).data)


class MyInvitationDeclineView(generics.GenericAPIView[MemberInvitation]):
    serializer_class = MyInvitationSerializer

    @extend_schema(request=None, responses={204: None}, summary="Decline an invitation")
    def post(self, request: Request, pk: int) -> Response:
        user = api_user(request)
        invitation = selectors.invitation_for_invitee(user=user, pk=pk)
        services.invitation_decline(invitation=invitation, user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)
