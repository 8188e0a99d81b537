"""Acceptance models. Fixtures and acknowledgements here; burn-in models join in their modules."""

from acceptance.models.burnin import (
    Acceptance,
    Baseline,
    BurnInRun,
    Check,
    ChecksState,
    DecisionKind,
    Evidence,
    EvidenceState,
    Reservation,
    ReservationStatus,
)
from acceptance.models.fixtures import (
    Acknowledgement,
    AckStatus,
    Fixture,
    FixtureVersion,
    FrozenFixtureVersionError,
)
from acceptance.models.incidents import (
    ChecklistSignoff,
    FailedRun,
    FailedRunFile,
    FailedRunState,
    Incident,
    IncidentEvidence,
    IncidentEvidenceKind,
    Severity,
)

__all__ = [
    "Acceptance",
    "AckStatus",
    "Acknowledgement",
    "Baseline",
    "BurnInRun",
    "Check",
    "ChecklistSignoff",
    "ChecksState",
    "DecisionKind",
    "Evidence",
    "EvidenceState",
    "FailedRun",
    "FailedRunFile",
    "FailedRunState",
    "Fixture",
    "FixtureVersion",
    "FrozenFixtureVersionError",
    "Incident",
    "IncidentEvidence",
    "IncidentEvidenceKind",
    "Reservation",
    "ReservationStatus",
    "Severity",
]
