from django.contrib import admin

from api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["prefix", "digest", "created_at", "last_used_at"]
    search_fields = ["name", "user__username", "prefix"]


from api.models import IdempotentResponse  # noqa: E402
from core.admin_tools import RecordAdmin  # noqa: E402


@admin.register(IdempotentResponse)
class IdempotentResponseAdmin(RecordAdmin):
    list_display = ["key", "user"]
    list_select_related = ["user"]
