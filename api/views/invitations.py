"""Buyers invite providers to a request; the provider directory lists whom they can invite."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import (
    INVITATION_ORDERING,
    PROVIDER_ORDERING,
    InvitationFilter,
    ProviderFilter,
)
from api.idempotency import IDEMPOTENCY_PARAMETER, idempotent
from api.permissions import api_user, buyer_org
from api.serializers.common import OrganizationSerializer
from api.serializers.requests import InvitationSerializer, InviteSerializer
from api.views.requests import request_for_buyer
from bids import selectors, services
from bids.models import Invitation
from orgs.choices import OrgKind
from orgs.models import Organization


class InvitationListView(generics.ListAPIView[Invitation]):
    serializer_class = InvitationSerializer
    filterset_class = InvitationFilter
    ordering_fields = INVITATION_ORDERING

    def get_queryset(self) -> QuerySet[Invitation]:
        if getattr(self, "swagger_fake_view", False):
            return Invitation.objects.none()
        return selectors.invitation_list(
            capacity_request=request_for_buyer(self.request, self.kwargs["pk"])
        )

    @extend_schema(
        request=InviteSerializer,
        responses={201: InvitationSerializer(many=True)},
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Invite providers by slug (buyers); returns the new invitations",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        req = request_for_buyer(request, pk)
        serializer = InviteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        slugs = serializer.validated_data["providers"]
        found = {o.slug: o for o in Organization.objects.filter(slug__in=slugs)}
        unknown = [s for s in slugs if s not in found or found[s].kind != OrgKind.PROVIDER]
        if unknown:
            return Response(
                {
                    "detail": "Check the fields named in errors.",
                    "errors": {"providers": [f"No provider with slug {s!r}." for s in unknown]},
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        created = services.request_invite(
            capacity_request=req, user=api_user(request), providers=[found[s] for s in slugs]
        )
        return Response(
            InvitationSerializer(created, many=True).data, status=status.HTTP_201_CREATED
        )


class InvitationDetailView(generics.GenericAPIView[Invitation]):
    serializer_class = InvitationSerializer

    @extend_schema(responses={204: None}, summary="Withdraw an invitation (buyers)")
    def delete(self, request: Request, pk: int, provider: str) -> Response:
        req = request_for_buyer(request, pk)
        invitation = (
            selectors.invitation_list(capacity_request=req).filter(provider__slug=provider).first()
        )
        if invitation is None:
            raise Http404
        services.request_uninvite(
            capacity_request=req, user=api_user(request), provider=invitation.provider
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProviderListView(generics.ListAPIView[Organization]):
    """Provider organisations a buyer can invite (buyers only)."""

    serializer_class = OrganizationSerializer
    filterset_class = ProviderFilter
    ordering_fields = PROVIDER_ORDERING

    def get_queryset(self) -> QuerySet[Organization]:
        if getattr(self, "swagger_fake_view", False):
            return Organization.objects.none()
        buyer_org(self.request)
        return Organization.objects.filter(kind=OrgKind.PROVIDER).order_by("name")
