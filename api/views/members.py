"""`GET /api/v1/members/`: the acting organisation's members and their roles. Changes are made
by its administrators on the members page (/org/members/)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics

from api.permissions import org_of_kind
from api.serializers.members import MemberSerializer
from orgs.models import Membership
from orgs.selectors import member_list


class MemberListView(generics.ListAPIView[Membership]):
    serializer_class = MemberSerializer
    filter_backends: list[Any] = []

    @extend_schema(summary="The members of the organisation you act for")
    def get(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Membership]:
        if getattr(self, "swagger_fake_view", False):
            return Membership.objects.none()
        return member_list(org=org_of_kind(self.request))
