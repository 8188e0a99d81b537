"""After acceptance: failed-run evidence, its analysis, and the incident record that follows.

Bytes are stored (with SHA-256) before any analysis; the worker writes its state on the row so
the page always shows what became of the upload. Clocks, terms and checklist items are frozen on
the incident when it opens, so later edits to the terms never move a running clock.
"""

from incidents.models.baseline import BaselineProposal, BaselineProposalStatus
from incidents.models.failed_runs import FailedRun, FailedRunFile, FailedRunState
from incidents.models.incident import (
    ChecklistDispute,
    ChecklistSignoff,
    ClockBreach,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    Severity,
    SeverityChange,
    SeverityChangeStatus,
    Signal,
)
from incidents.models.record import (
    CauseClass,
    ChangeKind,
    ChangeLogEntry,
    ChangeStatus,
    Confidence,
    RepairEstimate,
)
from incidents.models.signals import StepTimesUpload

__all__ = [
    "BaselineProposal",
    "BaselineProposalStatus",
    "CauseClass",
    "ChangeKind",
    "ChangeLogEntry",
    "ChangeStatus",
    "ChecklistDispute",
    "ChecklistSignoff",
    "ClockBreach",
    "Confidence",
    "FailedRun",
    "FailedRunFile",
    "FailedRunState",
    "Incident",
    "IncidentEvidence",
    "IncidentEvidenceKind",
    "RepairEstimate",
    "Severity",
    "SeverityChange",
    "SeverityChangeStatus",
    "Signal",
    "StepTimesUpload",
]
