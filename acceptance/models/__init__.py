"""Acceptance models: fixtures and acknowledgements, reservations and their burn-in runs."""

from acceptance.models.burnin import (
    Acceptance,
    Baseline,
    BaselineSource,
    BurnInRun,
    Check,
    ChecksState,
    DecisionKind,
    Evidence,
    EvidenceState,
    Reservation,
    ReservationStatus,
)
from acceptance.models.canary import Canary
from acceptance.models.findings import FindingExplanation
from acceptance.models.fixtures import (
    Acknowledgement,
    AckStatus,
    Fixture,
    FixtureVersion,
    FrozenFixtureVersionError,
)
from acceptance.models.override import OverrideOutcome, OverrideRequest
from acceptance.models.pilot import PILOT_MAX_DAYS, Pilot, PilotScoring
from acceptance.models.reference import FixtureReference, ReferenceSource

__all__ = [
    "PILOT_MAX_DAYS",
    "Acceptance",
    "AckStatus",
    "Acknowledgement",
    "Baseline",
    "BaselineSource",
    "BurnInRun",
    "Canary",
    "Check",
    "ChecksState",
    "DecisionKind",
    "Evidence",
    "EvidenceState",
    "FindingExplanation",
    "Fixture",
    "FixtureReference",
    "FixtureVersion",
    "FrozenFixtureVersionError",
    "OverrideOutcome",
    "OverrideRequest",
    "Pilot",
    "PilotScoring",
    "ReferenceSource",
    "Reservation",
    "ReservationStatus",
]
