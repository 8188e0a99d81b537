"""`/api/v1/notices/`: the caller's own notices (whatever organisation it acts for), and marking
one read. Another user's notice is a 404, exactly like one that does not exist. A notice's
`id` is its public UUID: the row counter, whose gaps tell of others' activity, never shows."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response

from api.filters import NOTICE_ORDERING, NoticeFilter
from api.permissions import api_user
from api.serializers.notices import NoticeSerializer
from notices import selectors, services
from notices.models import Notice


class NoticeListView(generics.ListAPIView[Notice]):
    """Your notices, newest first (`?unread=true` for the unread ones, `?event=`)."""

    serializer_class = NoticeSerializer
    filterset_class = NoticeFilter
    ordering_fields = NOTICE_ORDERING

    def get_queryset(self) -> QuerySet[Notice]:
        if getattr(self, "swagger_fake_view", False):
            return Notice.objects.none()
        return selectors.notice_list(user=api_user(self.request))


class NoticeReadView(generics.GenericAPIView[Notice]):
    serializer_class = NoticeSerializer

    @extend_schema(
        request=None, responses=NoticeSerializer, summary="Mark one of your notices read"
    )
    def post(self, request: Request, pk: UUID) -> Response:
        notice = selectors.notice_get(user=api_user(request), public_id=pk)
        return Response(NoticeSerializer(services.notice_mark_read(notice=notice)).data)
