from django.contrib import admin

from core.admin_tools import RecordAdmin
from incidents.models import (
    BaselineProposal,
    ChangeLogEntry,
    ChecklistDispute,
    ChecklistSignoff,
    ClockBreach,
    FailedRun,
    FailedRunFile,
    Incident,
    IncidentEvidence,
    RepairEstimate,
    SeverityChange,
    StepTimesUpload,
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


@admin.register(ChecklistDispute)
class ChecklistDisputeAdmin(RecordAdmin):
    list_display = ["pk", "incident", "key", "party", "at"]


@admin.register(ChangeLogEntry)
class ChangeLogEntryAdmin(RecordAdmin):
    list_display = ["pk", "incident"]


@admin.register(RepairEstimate)
class RepairEstimateAdmin(RecordAdmin):
    list_display = ["pk", "incident"]


@admin.register(StepTimesUpload)
class StepTimesUploadAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "incident", "original_name"]


@admin.register(SeverityChange)
class SeverityChangeAdmin(RecordAdmin):
    list_display = ["pk", "incident", "from_severity", "to_severity", "status"]
    list_select_related = ["incident"]


@admin.register(ClockBreach)
class ClockBreachAdmin(RecordAdmin):
    list_display = ["pk", "incident", "clock", "severity", "recorded_at"]
    list_select_related = ["incident"]


@admin.register(BaselineProposal)
class BaselineProposalAdmin(RecordAdmin):
    list_display = ["pk", "reservation", "step_time_s", "steps", "status", "proposed_at"]
    list_select_related = ["reservation"]
