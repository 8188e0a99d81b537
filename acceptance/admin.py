from django.contrib import admin

from acceptance.models import (
    Acceptance,
    Acknowledgement,
    Baseline,
    BurnInRun,
    Canary,
    Check,
    Evidence,
    FindingExplanation,
    Fixture,
    FixtureReference,
    FixtureVersion,
    OverrideRequest,
    Pilot,
    PilotScoring,
    Reservation,
)
from core.admin_tools import RecordAdmin


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


# Written by the product; read-only here so nothing certified can be edited by hand.


@admin.register(FixtureVersion)
class FixtureVersionAdmin(RecordAdmin):
    list_display = ["fixture", "number", "template", "spec_sha256", "created_at"]
    list_select_related = ["fixture__request"]


@admin.register(FixtureReference)
class FixtureReferenceAdmin(RecordAdmin):
    list_display = ["fixture_version", "source", "original_name", "passed", "uploaded_at"]
    list_filter = ["source", "passed"]
    list_select_related = ["fixture_version__fixture__request"]


@admin.register(Reservation)
class ReservationAdmin(RecordAdmin):
    list_display = ["request", "bid", "status", "awarded_at"]
    list_filter = ["status"]
    list_select_related = ["request", "bid__provider"]


@admin.register(BurnInRun)
class BurnInRunAdmin(RecordAdmin):
    list_display = ["reservation", "pilot", "label", "checks_state", "created_at"]
    list_select_related = ["reservation__request", "pilot__bid__provider", "pilot__bid__request"]


@admin.register(Pilot)
class PilotAdmin(RecordAdmin):
    list_display = ["bid", "starts_on", "ends_on", "invited_at"]
    list_select_related = ["bid__provider", "bid__request"]


@admin.register(Canary)
class CanaryAdmin(RecordAdmin):
    list_display = ["reservation", "closes_at", "driver_version", "created_at"]
    list_select_related = ["reservation__request"]


@admin.register(PilotScoring)
class PilotScoringAdmin(RecordAdmin):
    list_display = ["request", "use_verified", "changed_at"]
    list_select_related = ["request"]


@admin.register(Evidence)
class EvidenceAdmin(RecordAdmin):
    list_display = ["original_name", "run", "node", "kind", "state", "uploaded_at"]
    list_filter = ["state", "kind"]
    list_select_related = ["run"]
    search_fields = ["original_name", "sha256"]


@admin.register(Check)
class CheckAdmin(RecordAdmin):
    list_display = ["name", "group", "status", "run"]
    list_filter = ["status", "group"]
    list_select_related = ["run"]


@admin.register(Acceptance)
class AcceptanceAdmin(RecordAdmin):
    list_display = ["reservation", "kind", "by", "at"]
    list_filter = ["kind"]
    list_select_related = ["reservation__request", "by"]


@admin.register(Baseline)
class BaselineAdmin(RecordAdmin):
    list_display = ["reservation", "run", "source", "created_at"]
    list_select_related = ["reservation__request", "run"]


@admin.register(OverrideRequest)
class OverrideRequestAdmin(RecordAdmin):
    list_display = ["reservation", "run", "outcome", "requested_by", "decided_by", "requested_at"]
    list_filter = ["outcome"]
    list_select_related = ["reservation__request", "run", "requested_by", "decided_by"]


@admin.register(FindingExplanation)
class FindingExplanationAdmin(RecordAdmin):
    list_display = ["run", "key", "by", "at"]
    list_select_related = ["run", "by"]
    search_fields = ["key", "reason"]
