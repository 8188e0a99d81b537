from django.contrib import admin

from contracts.models import HandoffTerms, HandoffTermsRevision
from core.admin_tools import RecordAdmin


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


@admin.register(HandoffTermsRevision)
class HandoffTermsRevisionAdmin(RecordAdmin):
    list_display = ["terms", "number", "sha256", "created_at"]
    list_select_related = ["terms__request"]
