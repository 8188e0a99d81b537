"""Plain input records for bid scoring; the Django layer fills them from models.

Nothing here imports Django: the scoring package must stay testable on its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from .history import ProviderHistory
from .offer_kinds import OFFER_KINDS, OfferKindError, device_fraction, mig_profile

FABRICS = ("infiniband", "roce", "ethernet", "other")
ISOLATION_CLASSES = OFFER_KINDS
SCHEDULERS = ("slurm", "kubernetes")
SPARES_LOCATIONS = ("none", "same_fabric_domain", "same_site", "remote")
COVERAGES = ("24x7", "extended", "business_hours")
SITE_READINESS = ("live", "racked", "under_construction")
ACKNOWLEDGEMENTS = ("accepted", "accepted_with_exceptions", "not_acknowledged")
SEVERITIES = ("S1", "S2", "S3")

Money = Decimal | float | int


class ScoringInputError(ValueError):
    """An input record holds a value the scoring model cannot use; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class WeightError(ValueError):
    """A scoring weight is invalid; `weight` names it (None when the set as a whole is)."""

    def __init__(self, weight: str | None, message: str) -> None:
        super().__init__(f"{weight}: {message}" if weight else message)
        self.weight = weight


def _choice(field: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ScoringInputError(field, f"{value!r} is not one of {', '.join(allowed)}")


def _positive(field: str, value: float) -> None:
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        raise ScoringInputError(field, f"must be a positive number, got {value!r}")


def _non_negative(field: str, value: float) -> None:
    if not (isinstance(value, int | float | Decimal) and math.isfinite(value) and value >= 0):
        raise ScoringInputError(field, f"must be a non-negative number, got {value!r}")


def _clocks(field: str, value: Mapping[str, float] | None) -> None:
    if value is None:
        return
    for severity, minutes in value.items():
        _choice(f"{field}[{severity}]", severity, SEVERITIES)
        _positive(f"{field}[{severity}]", minutes)


def _offer_kind(field: str, check: Callable[[], object]) -> None:
    try:
        check()
    except OfferKindError as exc:
        raise ScoringInputError(
            exc.field if field == "isolation_class" else field, str(exc)
        ) from exc


def reserved_hours(*, start: date, end: date) -> int:
    """Hours from the first day to the last, both included; none when the end comes first."""
    return max((end - start).days + 1, 0) * 24


@dataclass(frozen=True)
class RequestProfile:
    """What the buyer asked for, plus the workload profile the cost model needs."""

    gpu_model: str
    gpu_count: int
    nodes: int
    gpus_per_node: int
    nvlink_domain_size: int
    fabric: str
    per_gpu_bandwidth_gbps: int
    max_leaf_switches: int | None
    single_fabric_domain: bool
    # The offer kinds the buyer accepts, and the smallest MIG profile it takes ("" for any).
    accepted_offer_kinds: tuple[str, ...]
    scheduler: str
    acceptable_regions: tuple[str, ...]
    reservation_start: date
    reservation_end: date
    checkpoint_write_seconds: float
    restart_seconds: float
    run_length_hours: float
    target_response_minutes: dict[str, float] | None = None
    target_restore_minutes: dict[str, float] | None = None
    # The job's real checkpoint interval; None scores each bid at its optimum (Daly).
    checkpoint_interval_seconds: float | None = None
    min_mig_profile: str = ""

    def __post_init__(self) -> None:
        for name in ("gpu_count", "nodes", "gpus_per_node", "nvlink_domain_size"):
            _positive(name, getattr(self, name))
        _non_negative("per_gpu_bandwidth_gbps", self.per_gpu_bandwidth_gbps)
        _choice("fabric", self.fabric, FABRICS)
        if not self.accepted_offer_kinds:
            raise ScoringInputError("accepted_offer_kinds", "must name at least one offer kind")
        for kind in self.accepted_offer_kinds:
            _choice("accepted_offer_kinds", kind, ISOLATION_CLASSES)
        if self.min_mig_profile:
            _offer_kind("min_mig_profile", lambda: mig_profile(self.min_mig_profile))
        _choice("scheduler", self.scheduler, SCHEDULERS)
        if self.reservation_end < self.reservation_start:
            raise ScoringInputError("reservation_end", "is before reservation_start")
        _positive("checkpoint_write_seconds", self.checkpoint_write_seconds)
        if self.checkpoint_interval_seconds is not None:
            _positive("checkpoint_interval_seconds", self.checkpoint_interval_seconds)
        _non_negative("restart_seconds", self.restart_seconds)
        _non_negative("run_length_hours", self.run_length_hours)
        _clocks("target_response_minutes", self.target_response_minutes)
        _clocks("target_restore_minutes", self.target_restore_minutes)

    @property
    def term_hours(self) -> float:
        """Reserved hours; the end date is inclusive (1 Feb - 30 Apr 2027 is 89 days)."""
        return float(reserved_hours(start=self.reservation_start, end=self.reservation_end))


@dataclass(frozen=True)
class BidOffer:
    """One provider's bid revision, flattened to what scoring reads."""

    label: str
    price_per_gpu_hour: Money
    fees_usd: Money
    egress_usd: Money
    region: str
    available_start: date
    available_end: date | None
    gpu_model: str
    nodes: int
    gpus_per_node: int
    nvlink_domain_size: int
    fabric: str
    nics_per_node: int
    nic_rate_gbps: int
    rail_optimised: bool
    oversubscription_ratio: float
    leaf_switches: int | None
    # The offer kind: whole_device, mig or time_sliced (see offer_kinds).
    isolation_class: str
    scheduler: str
    topology_aware: bool
    gang_scheduling: bool
    health_checks_auto_drain: bool
    uptime_pct: float
    node_replacement_hours: float
    spares_count: int
    spares_location: str
    coverage: str
    declared_node_mtbf_hours: float | None
    site_readiness: str
    acknowledgement: str
    acknowledgement_exceptions: int = 0
    # Why the provider's own acceptance run misses the transport the fixture requires, if it
    # does: one more exception, named in the rationale.
    execution_path_mismatch: str | None = None
    evidence_shared: bool = False
    response_minutes: dict[str, float] | None = None
    restore_minutes: dict[str, float] | None = None
    # Which questionnaire row gave each clock, keyed "S1.response": named in the rationale.
    clock_rows: dict[str, str] | None = None
    deal_breaker_failures: tuple[str, ...] = ()
    missing_required_answers: tuple[str, ...] = ()
    # The provider's recorded track record (every buyer's reservations, counts only), if any.
    history: ProviderHistory | None = None
    # A MIG offer's profile ("3g.40gb"), a time-sliced offer's replicas per GPU.
    mig_profile: str = ""
    time_slice_replicas: int | None = None

    def __post_init__(self) -> None:
        if not self.label.strip():
            raise ScoringInputError("label", "must not be blank")
        for name in ("price_per_gpu_hour", "fees_usd", "egress_usd"):
            _non_negative(name, getattr(self, name))
        for name in ("nodes", "gpus_per_node", "nvlink_domain_size"):
            _positive(name, getattr(self, name))
        for name in ("nics_per_node", "nic_rate_gbps", "spares_count"):
            _non_negative(name, getattr(self, name))
        _choice("fabric", self.fabric, FABRICS)
        _choice("isolation_class", self.isolation_class, ISOLATION_CLASSES)
        _offer_kind("isolation_class", lambda: self.device_fraction)
        _choice("scheduler", self.scheduler, SCHEDULERS)
        _choice("spares_location", self.spares_location, SPARES_LOCATIONS)
        _choice("coverage", self.coverage, COVERAGES)
        _choice("site_readiness", self.site_readiness, SITE_READINESS)
        _choice("acknowledgement", self.acknowledgement, ACKNOWLEDGEMENTS)
        _positive("oversubscription_ratio", self.oversubscription_ratio)
        if not 0 <= self.uptime_pct <= 100:
            raise ScoringInputError("uptime_pct", f"must be within 0-100, got {self.uptime_pct}")
        _non_negative("node_replacement_hours", self.node_replacement_hours)
        _non_negative("acknowledgement_exceptions", self.acknowledgement_exceptions)
        if self.declared_node_mtbf_hours is not None:
            _positive("declared_node_mtbf_hours", self.declared_node_mtbf_hours)
        if self.leaf_switches is not None:
            _positive("leaf_switches", self.leaf_switches)
        _clocks("response_minutes", self.response_minutes)
        _clocks("restore_minutes", self.restore_minutes)

    @property
    def gpu_total(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def device_fraction(self) -> Fraction:
        """The share of one GPU a unit of the offer is (1 for a whole device)."""
        return device_fraction(
            kind=self.isolation_class, profile=self.mig_profile, replicas=self.time_slice_replicas
        )

    @property
    def price_per_device_hour(self) -> float:
        """The price per slice-hour scaled to one whole-device-equivalent hour."""
        return float(self.price_per_gpu_hour) / float(self.device_fraction)

    @property
    def per_gpu_bandwidth_gbps(self) -> float:
        """Back-end bandwidth each GPU gets: all NICs of a node shared by its GPUs."""
        return self.nics_per_node * self.nic_rate_gbps / self.gpus_per_node


# Changes whenever a formula or rule changes what a score or rationale says, so that runs
# scored under the previous rules no longer match the inputs' fingerprint and are redone.
MODEL_VERSION = "2026-12-06"

MAX_WEIGHT = 1_000_000.0

CRITERIA = (
    "effective_cost",
    "fabric_placement",
    "incident_sla",
    "acceptance_terms",
    "delivery_risk",
)


@dataclass(frozen=True)
class Weights:
    """Relative importance of the five criteria; only ratios matter."""

    effective_cost: float = 40.0
    fabric_placement: float = 20.0
    incident_sla: float = 20.0
    acceptance_terms: float = 10.0
    delivery_risk: float = 10.0

    def __post_init__(self) -> None:
        for name in CRITERIA:
            _check_weight(name, getattr(self, name))
        if all(getattr(self, name) == 0 for name in CRITERIA):
            raise WeightError(None, "at least one weight must be above zero")

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Weights:
        """Build from a JSON-ish mapping; missing criteria keep their default."""
        known = {f.name for f in fields(cls)}
        values: dict[str, float] = {}
        for key, raw in data.items():
            if key not in known:
                raise WeightError(key, f"unknown criterion (expected one of {', '.join(CRITERIA)})")
            values[key] = _weight_number(key, raw)
            # The refusal quotes the weight as it was typed ("-5"), not as the float it read.
            _check_weight(key, values[key], typed=_as_typed(raw))
        return cls(**values)

    def to_dict(self) -> dict[str, float]:
        return {name: float(getattr(self, name)) for name in CRITERIA}

    def as_tuple(self) -> tuple[float, ...]:
        return tuple(float(getattr(self, name)) for name in CRITERIA)


def _check_weight(name: str, value: object, typed: str | None = None) -> None:
    """`typed`: the weight as the user wrote it, quoted back in the refusal ("got -5", never the
    "-5.0" it was read as); a number from code or JSON is printed plainly ("-5", "1,000,001")."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WeightError(name, f"must be a number, got {value!r}")
    shown = typed or f"{value:,.10g}"
    if not math.isfinite(value):
        raise WeightError(name, f"must be finite, got {shown}")
    if value < 0:
        raise WeightError(name, f"must not be negative, got {shown}")
    if value > MAX_WEIGHT:
        # Only ratios matter, and a sum of huge weights overflows to infinity.
        raise WeightError(name, f"must be at most {MAX_WEIGHT:,.0f}, got {shown}")


def _as_typed(raw: object) -> str | None:
    return str(raw).strip() if isinstance(raw, str | Decimal) else None


def _weight_number(key: str, raw: object) -> float:
    if isinstance(raw, bool):
        raise WeightError(key, f"must be a number, got {raw!r}")
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, Decimal | str):
        try:
            return float(Decimal(str(raw).strip()))
        except InvalidOperation:
            pass
    raise WeightError(key, f"must be a number, got {raw!r}")
