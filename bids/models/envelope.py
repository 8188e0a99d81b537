"""The promised service envelope on a bid: which fields it is, and how they must agree.

Seed 003 asks a buyer to compare the envelope a provider promises (placement, time to running,
reclaim terms, health checks, and for inference the latencies at a stated concurrency) with what
the workload later observes. Every field is optional; these rules only stop a promise that
contradicts itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bids.models.bids import BidTerms

SCHEDULING_FIELDS: tuple[str, ...] = (
    "placement_class",
    "start_p50_minutes",
    "start_p95_minutes",
    "idle_capacity_lent",
    "preemptible",
    "reclaim_notice_minutes",
    "reclaim_effect",
    "health_check_minutes",
    "node_fail_criteria",
)
INFERENCE_FIELDS: tuple[str, ...] = (
    "inference_concurrency",
    "ttft_p50_ms",
    "ttft_p95_ms",
    "itl_p50_ms",
    "itl_p95_ms",
    "throughput_tokens_per_s",
    "cost_per_million_tokens",
)
# (median, p95, what they measure): a tail faster than its median is a typing slip.
_PAIRS = (
    ("start_p50_minutes", "start_p95_minutes", "time to running"),
    ("ttft_p50_ms", "ttft_p95_ms", "time to first token"),
    ("itl_p50_ms", "itl_p95_ms", "inter-token latency"),
)
# Latency and throughput mean nothing without the concurrency they were measured at.
_NEEDS_CONCURRENCY = ("ttft_p50_ms", "ttft_p95_ms", "itl_p50_ms", "itl_p95_ms")


def _given(value: Any) -> bool:
    return value not in (None, "")


def validate_envelope(terms: BidTerms) -> dict[str, list[str]]:
    """Field-level contradictions in the envelope, by field name."""
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    for median, tail, what in _PAIRS:
        low, high = getattr(terms, median), getattr(terms, tail)
        if low is not None and high is not None and high < low:
            add(tail, f"The p95 {what} ({high}) cannot be shorter than the median ({low}).")
    if terms.preemptible:
        if terms.reclaim_notice_minutes is None:
            add("reclaim_notice_minutes", "Give the notice, in minutes, before a reclaim.")
        if not terms.reclaim_effect:
            add("reclaim_effect", "Say what a reclaim does to a running job.")
    elif terms.preemptible is False:
        for field in ("reclaim_notice_minutes", "reclaim_effect"):
            if _given(getattr(terms, field)):
                add(field, "Running jobs are never reclaimed: clear this, or answer Yes above.")
    if terms.health_check_minutes is not None and not terms.node_fail_criteria.strip():
        add("node_fail_criteria", "Say what a health check fails a node for.")
    promised = [f for f in _NEEDS_CONCURRENCY if getattr(terms, f) is not None]
    if promised and terms.inference_concurrency is None:
        add("inference_concurrency", "Give the concurrency the promised latencies hold at.")
    return errors
