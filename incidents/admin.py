from django.contrib import admin

from core.admin_tools import RecordAdmin
from incidents.models import (
    ChecklistSignoff,
    FailedRun,
    FailedRunFile,
    Incident,
    IncidentEvidence,
)


@admin.register(FailedRun)
class FailedRunAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "state"]
    list_select_related = ["reservation__request"]


@admin.register(FailedRunFile)
class FailedRunFileAdmin(RecordAdmin):
    list_display = ["pk", "failed_run"]


@admin.register(Incident)
class IncidentAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "severity"]
    list_select_related = ["reservation__request"]


@admin.register(IncidentEvidence)
class IncidentEvidenceAdmin(RecordAdmin):
    list_display = ["pk", "incident"]


@admin.register(ChecklistSignoff)
class ChecklistSignoffAdmin(RecordAdmin):
    list_display = ["pk", "incident"]
