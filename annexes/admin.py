from django.contrib import admin

from annexes.models import Annex, AnnexJob, AnnexSignature
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


@admin.register(AnnexSignature)
class AnnexSignatureAdmin(RecordAdmin):
    list_display = ["annex", "party", "organization", "signer_name", "signed_at", "pdf_sha256"]
    list_filter = ["party"]
    list_select_related = ["annex__request", "organization"]
