from django.contrib import admin

from core.admin_tools import RecordAdmin
from delivery.models import MaintenanceWindow


@admin.register(MaintenanceWindow)
class MaintenanceWindowAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "starts_at", "ends_at", "short_notice"]
    list_select_related = ["reservation__request"]
