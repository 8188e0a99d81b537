from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from audit.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """Read-only: the trail is append-only, and only the services append."""

    list_display = ["seq", "at", "action", "obj_key", "actor_name", "org", "party"]
    list_filter = ["party", "action"]
    list_select_related = ["org"]
    search_fields = ["obj_key", "action", "actor_name"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
