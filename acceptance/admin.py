from django.contrib import admin

from acceptance.models import Acknowledgement, Fixture, FixtureVersion


class FixtureVersionInline(admin.TabularInline):
    model = FixtureVersion
    extra = 0
    can_delete = False
    fields = ["number", "template", "spec_sha256", "created_by", "created_at"]
    readonly_fields = ["number", "template", "spec_sha256", "created_by", "created_at"]


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ["request", "current_number", "updated_at"]
    list_select_related = ["request"]
    search_fields = ["request__title"]
    readonly_fields = ["request", "current_number"]
    inlines = [FixtureVersionInline]


@admin.register(Acknowledgement)
class AcknowledgementAdmin(admin.ModelAdmin):
    list_display = ["bid", "status", "fixture_version", "terms_revision", "by", "at"]
    list_filter = ["status"]
    list_select_related = [
        "bid__provider",
        "bid__request",
        "fixture_version",
        "terms_revision",
        "by",
    ]
    readonly_fields = ["bid", "fixture_version", "terms_revision", "status", "exceptions", "by"]
