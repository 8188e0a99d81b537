"""What `OPTIONS` answers: the methods, and the fields each write takes, for any caller.

DRF's SimpleMetadata checks object permissions for PUT by calling `get_object()`, which most
views here do not use (each handler loads its object behind tenancy through a selector): on
those views OPTIONS raised and answered 500. The field list depends on the view alone, never
on the object, so it is described without loading one; the handlers keep every permission.
"""

from __future__ import annotations

from typing import Any

from rest_framework.metadata import SimpleMetadata
from rest_framework.request import Request


class WriteFieldsMetadata(SimpleMetadata):
    def determine_actions(self, request: Request, view: Any) -> dict[str, Any]:
        actions: dict[str, Any] = {}
        get_serializer = getattr(view, "get_serializer", None)
        if get_serializer is None:
            return actions
        for method in {"PUT", "POST", "PATCH"} & set(view.allowed_methods):
            try:
                serializer = get_serializer()
            except Exception:  # a view whose serializer needs its request's object: no fields
                continue
            actions[method] = self.get_serializer_info(serializer)
        return actions
