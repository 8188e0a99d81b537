"""Acceptance models: fixtures and acknowledgements, reservations and their burn-in runs."""

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

__all__ = [
    "Acceptance",
    "AckStatus",
    "Acknowledgement",
    "Baseline",
    "BurnInRun",
    "Check",
    "ChecksState",
    "DecisionKind",
    "Evidence",
    "EvidenceState",
    "Fixture",
    "FixtureVersion",
    "FrozenFixtureVersionError",
    "Reservation",
    "ReservationStatus",
]
