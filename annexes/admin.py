from django.contrib import admin

from annexes.models import Annex, AnnexJob
from core.admin_tools import RecordAdmin


@admin.register(Annex)
class AnnexAdmin(RecordAdmin):
    """Issued annexes are immutable: the admin shows them, never edits them."""

    list_display = ["request", "kind", "version", "pages", "snapshot_sha256", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["request"]
    exclude = ["snapshot"]


@admin.register(AnnexJob)
class AnnexJobAdmin(RecordAdmin):
    list_display = ["request", "kind", "status", "attempts", "requested_at", "finished_at"]
    list_filter = ["status", "kind"]
    list_select_related = ["request"]
