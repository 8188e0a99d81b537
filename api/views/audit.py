"""`GET /api/v1/audit/?object=request:12`: an object's history, as on its page's panel. The
same tenancy: the entries the acting organisation may read; an object it reads nothing of is a
404, exactly as an object that does not exist (and as the CSV export on the pages)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError

from api.permissions import org_of_kind
from api.serializers.audit import AuditEntrySerializer
from audit.models import AuditEntry
from audit.selectors import OBJECT_KEY, OBJECT_KINDS, entries_for, valid_object_key

OBJECT_PARAMETER = OpenApiParameter(
    "object",
    OpenApiTypes.STR,
    required=True,
    pattern=OBJECT_KEY.pattern,
    description=f"The object: `<kind>:<id>`, kind one of {', '.join(OBJECT_KINDS)}.",
)


class AuditListView(generics.ListAPIView[AuditEntry]):
    """The audit entries on one object, oldest first, with their hashes."""

    serializer_class = AuditEntrySerializer
    filter_backends: list[Any] = []

    @extend_schema(parameters=[OBJECT_PARAMETER], summary="An object's audit history")
    def get(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[AuditEntry]:
        if getattr(self, "swagger_fake_view", False):
            return AuditEntry.objects.none()
        key = self.request.query_params.get("object", "")
        org = org_of_kind(self.request)
        if not valid_object_key(key):
            raise ValidationError(
                {"object": [f"Name one object as <kind>:<id>, kind one of {OBJECT_KINDS}."]}
            )
        entries = entries_for(org=org, obj_key=key)
        if not entries.exists():
            raise NotFound
        return entries
