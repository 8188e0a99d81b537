"""`/api/v1/me/`: who the token or session is, and which organisation it acts for."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import api_memberships, api_org, api_user
from api.serializers.common import MeSerializer


class MeView(APIView):
    @extend_schema(responses=MeSerializer, summary="You, and the organisation you act for")
    def get(self, request: Request) -> Response:
        user = api_user(request)
        # The memberships the acting organisation was chosen from list them all.
        orgs = sorted(
            (m.organization for m in api_memberships(request)), key=lambda o: (o.name, o.pk)
        )
        return Response(
            MeSerializer(
                {
                    "username": user.get_username(),
                    "organization": api_org(request),
                    "organizations": orgs,
                }
            ).data
        )
