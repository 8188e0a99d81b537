from django.contrib import admin

from core.admin_tools import RecordAdmin
from inference.models import ServedResponsesFile


@admin.register(ServedResponsesFile)
class ServedResponsesFileAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "original_name", "party", "kind", "state", "uploaded_at"]
    list_select_related = ["reservation__request", "reservation__bid__provider"]
