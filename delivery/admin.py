from django.contrib import admin

from core.admin_tools import RecordAdmin
from delivery.models import MaintenanceWindow, PlannedChange


@admin.register(MaintenanceWindow)
class MaintenanceWindowAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "starts_at", "ends_at", "short_notice"]
    list_select_related = ["reservation__request"]


@admin.register(PlannedChange)
class PlannedChangeAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "kind", "component", "to_version", "announced_at"]
    list_select_related = ["reservation__request"]
