from django.contrib import admin

from core.admin_tools import RecordAdmin
from sso.models import OidcConnection, OidcDomain, OidcIdentity, ScimAccount


@admin.register(OidcConnection)
class OidcConnectionAdmin(RecordAdmin):
    """Changed by the organisation's administrators on its page; the secret is never shown."""

    list_display = ["organization", "issuer", "client_id", "enabled", "updated_at"]
    list_filter = ["enabled"]
    list_select_related = ["organization"]
    exclude = ["client_secret_encrypted", "scim_token_sha256"]


@admin.register(OidcDomain)
class OidcDomainAdmin(RecordAdmin):
    list_display = ["domain", "connection"]
    list_select_related = ["connection__organization"]


@admin.register(OidcIdentity)
class OidcIdentityAdmin(RecordAdmin):
    list_display = ["subject", "user", "connection", "last_sign_in_at"]
    list_select_related = ["user", "connection__organization"]
    search_fields = ["subject", "user__username", "user__email"]


@admin.register(ScimAccount)
class ScimAccountAdmin(RecordAdmin):
    list_display = ["user", "connection", "external_id", "active", "created_at"]
    list_filter = ["active"]
    list_select_related = ["user", "connection__organization"]
