from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_tools import RecordAdmin
from ops.models import ExportJob


@admin.register(ExportJob)
class ExportJobAdmin(RecordAdmin):
    """An export is a copy of what the organisation could read: viewable, never edited; deleting
    one removes its zip from storage too."""

    list_display = ["organization", "status", "size", "created_by", "created_at", "finished_at"]
    list_filter = ["status"]
    list_select_related = ["organization", "created_by"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return admin.ModelAdmin.has_delete_permission(self, request, obj)

    def delete_model(self, request: HttpRequest, obj: ExportJob) -> None:
        obj.file.delete(save=False)
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ExportJob]) -> None:
        for job in queryset:
            job.file.delete(save=False)
        super().delete_queryset(request, queryset)
