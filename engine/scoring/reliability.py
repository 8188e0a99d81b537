"""Where the cost model's reliability inputs come from: the node MTBF (declared, the Llama 3
derived default, or the provider's recorded track record) and the parts of the restart cost.

Sources and reasoning in docs/scoring.md; the cost model itself is in `cost_model`.
- Llama Team, AI @ Meta (2024). "The Llama 3 Herd of Models", arXiv:2407.21783, section 3.3.4:
  419 unexpected interruptions in a 54-day snapshot of Llama 3 405B pre-training on
  16,384 H100 GPUs (2,048 servers of 8).
"""

from __future__ import annotations

from dataclasses import dataclass

from .history import (
    MIN_CLOSED_INCIDENTS,
    MIN_NODE_HOURS,
    ProviderHistory,
    TimingRecord,
    realised_node_mtbf,
)
from .inputs import BidOffer

# --- Default node MTBF, derived from Meta's published Llama 3 405B training figures ---------
LLAMA3_GPUS = 16_384
LLAMA3_GPUS_PER_NODE = 8
LLAMA3_DAYS = 54
LLAMA3_UNEXPECTED_INTERRUPTIONS = 419
LLAMA3_NODES = LLAMA3_GPUS // LLAMA3_GPUS_PER_NODE
#: node-hours observed per unexpected job interruption: 2,048 x 54 x 24 / 419 = about 6,335 h.
DEFAULT_NODE_MTBF_HOURS = LLAMA3_NODES * LLAMA3_DAYS * 24 / LLAMA3_UNEXPECTED_INTERRUPTIONS

MTBF_DECLARED = "declared"
MTBF_DEFAULT = "default_llama3_2024"
MTBF_REALISED = "realised"
#: Short names of the sources, as the page, the rationale and the exports print them.
MTBF_SOURCE_NAMES = {MTBF_DECLARED: "declared", MTBF_DEFAULT: "default", MTBF_REALISED: "realised"}

INTERVAL_BUYER = "buyer"
INTERVAL_OPTIMUM = "optimum"

# --- Restart-cost defaults (seconds); docs/scoring.md explains each -------------------------
#: PyTorch's NCCL process-group timeout defaults to 10 minutes: a hang surfaces after that.
DEFAULT_DETECTION_SECONDS = 600.0
#: A node health daemon with automatic drain sees Xid/link faults and fails the job sooner.
HEALTH_CHECK_DETECTION_SECONDS = 300.0
#: Draining the failed node and bringing a spare that already sits on the job's fabric.
HOT_SPARE_SWAP_SECONDS = 1_800.0
#: DCGM diagnostics on the returned node plus a multi-node NCCL run against the baseline.
DEFAULT_REVALIDATION_SECONDS = 1_800.0
#: 365 x 24 / 12: the month used for "per month" figures.
HOURS_PER_MONTH = 730.0

# Support windows as (open hours per day, open days per week); 24x7 never waits.
_COVERAGE_WINDOWS: dict[str, tuple[float, int]] = {
    "24x7": (24.0, 7),
    "extended": (12.0, 7),  # e.g. 08:00-20:00 every day
    "business_hours": (10.0, 5),  # e.g. 08:00-18:00 Monday to Friday
}

REPAIR_HOT_SPARE = "hot_spare"
REPAIR_REPLACEMENT = "node_replacement"


def expected_support_wait_hours(coverage: str) -> float:
    """Mean wait until support is staffed, for a failure at a uniformly random time of week.

    A closed gap of g hours is hit with probability g/168 and waited out g/2 on average,
    so the mean wait is the sum of g**2 / 2 over the week's gaps, divided by 168.
    """
    open_hours, open_days = _COVERAGE_WINDOWS[coverage]
    if open_hours >= 24 and open_days == 7:
        return 0.0
    night = 24.0 - open_hours
    gaps = [night] * (open_days - 1) + [night + 24.0 * (7 - open_days)]
    return sum(g * g / 2 for g in gaps) / 168.0


def node_mtbf(bid: BidOffer) -> tuple[float, str]:
    """The bid's declared node MTBF, or the Llama 3 derived default; with its source."""
    if bid.declared_node_mtbf_hours is not None:
        return float(bid.declared_node_mtbf_hours), MTBF_DECLARED
    return DEFAULT_NODE_MTBF_HOURS, MTBF_DEFAULT


@dataclass(frozen=True)
class MtbfChoice:
    hours: float
    source: str
    provenance: str  # short: "declared", "default", "realised, 3 reservations, ..."
    formula: str


def mtbf_choice(bid: BidOffer) -> MtbfChoice:
    """Declared or default node MTBF, replaced by the blended record once it is long enough."""
    prior, source = node_mtbf(bid)
    prior_from = (
        "declared by the provider"
        if source == MTBF_DECLARED
        else (
            f"default: {LLAMA3_NODES:,} nodes x {LLAMA3_DAYS} d x 24 h / "
            f"{LLAMA3_UNEXPECTED_INTERRUPTIONS} interruptions (Llama 3, Meta 2024)"
        )
    )
    history = bid.history
    realised = realised_node_mtbf(prior, history)
    if realised is not None and history is not None:
        return MtbfChoice(
            realised.node_mtbf_hours,
            MTBF_REALISED,
            f"realised, {history.summary}",
            f"realised: {history.summary}; {realised.formula}; prior = the "
            f"{MTBF_SOURCE_NAMES[source]} {prior:,.0f} h",
        )
    if history is not None:
        prior_from += (
            f" (record too short to count: {history.summary}, below {MIN_NODE_HOURS:,.0f} "
            "node-hours)"
        )
    return MtbfChoice(prior, source, MTBF_SOURCE_NAMES[source], prior_from)


def _timing(
    record: TimingRecord, what: str, fallback: float, fallback_from: str
) -> tuple[float, str]:
    if record.usable and record.median_seconds is not None:
        return record.median_seconds, (
            f"realised: median of {record.samples} closed incidents ({what})"
        )
    if record.samples:
        fallback_from += (
            f" (only {record.samples} closed incidents recorded; {MIN_CLOSED_INCIDENTS} needed)"
        )
    return fallback, fallback_from


def has_hot_spare(bid: BidOffer) -> bool:
    return bid.spares_count > 0 and bid.spares_location == "same_fabric_domain"


@dataclass(frozen=True)
class RestartParts:
    """The provider's share of the restart cost R, each part with where it came from."""

    detection: float
    detection_from: str
    support_wait: float
    support_wait_from: str
    repair_path: str
    repair: float
    repair_from: str
    revalidation: float
    revalidation_from: str


def restart_parts(bid: BidOffer) -> RestartParts:
    """Modelled from the bid's terms; each part the record measures well enough replaces it."""
    hot_spare = has_hot_spare(bid)
    detection = (
        HEALTH_CHECK_DETECTION_SECONDS
        if bid.health_checks_auto_drain
        else DEFAULT_DETECTION_SECONDS
    )
    # An automated swap onto a hot spare needs nobody on shift; every other path waits for staff.
    automated = hot_spare and bid.health_checks_auto_drain
    support_wait = 0.0 if automated else expected_support_wait_hours(bid.coverage) * 3600.0
    repair = HOT_SPARE_SWAP_SECONDS if hot_spare else float(bid.node_replacement_hours) * 3600.0
    history = bid.history or ProviderHistory(reservations=0, node_hours=0, incidents=0)
    det, det_from = _timing(
        history.detection,
        "failure, or opening, to first response",
        detection,
        "watchdog timeout, or health checks with auto-drain",
    )
    wait_from = "mean wait for staffed support under the coverage hours"
    if history.detection.usable:
        # A measured first response already includes any wait for staff to come on shift.
        support_wait, wait_from = 0.0, "included in the realised detection"
    rep, rep_from = _timing(
        history.repair,
        "first response to restore",
        repair,
        "hot spare in the job's fabric domain" if hot_spare else "provider's node replacement time",
    )
    reval, reval_from = _timing(
        history.revalidation,
        "restore to revalidation",
        DEFAULT_REVALIDATION_SECONDS,
        "diagnostics + multi-node NCCL against the baseline",
    )
    return RestartParts(
        det,
        det_from,
        support_wait,
        wait_from,
        REPAIR_HOT_SPARE if hot_spare else REPAIR_REPLACEMENT,
        rep,
        rep_from,
        reval,
        reval_from,
    )
