from django.contrib import admin

from billing.models import UsageDifference, UsageMapping, UsageUpload
from core.admin_tools import RecordAdmin


@admin.register(UsageMapping)
class UsageMappingAdmin(RecordAdmin):
    list_display = ["pk", "provider", "unit", "updated_at"]
    list_select_related = ["provider"]


@admin.register(UsageUpload)
class UsageUploadAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "original_name", "state", "lines", "uploaded_at"]
    list_select_related = ["reservation__request", "reservation__bid__provider"]


@admin.register(UsageDifference)
class UsageDifferenceAdmin(RecordAdmin):
    list_display = ["pk", "upload", "line", "rule"]
    list_select_related = ["upload"]
