from django.contrib import admin

from contracts.models import HandoffTerms, HandoffTermsRevision


class RevisionInline(admin.TabularInline):
    model = HandoffTermsRevision
    extra = 0
    can_delete = False
    fields = ["number", "sha256", "created_by", "created_at"]
    readonly_fields = ["number", "sha256", "created_by", "created_at"]


@admin.register(HandoffTerms)
class HandoffTermsAdmin(admin.ModelAdmin):
    list_display = ["request", "version", "template", "updated_at"]
    list_select_related = ["request"]
    search_fields = ["request__title"]
    readonly_fields = ["request", "version", "template"]
    inlines = [RevisionInline]


from config.admin_tools import RecordAdmin  # noqa: E402
from contracts.models_annex import Annex, AnnexJob  # noqa: E402


@admin.register(HandoffTermsRevision)
class HandoffTermsRevisionAdmin(RecordAdmin):
    list_display = ["terms", "number", "sha256", "created_at"]
    list_select_related = ["terms__request"]


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
