"""The provider's promise as the checks read it: the scheduling half of the bid's envelope."""

from __future__ import annotations

from dataclasses import dataclass

# What a reclaim does to a running job (the bid's `reclaim_effect` choices).
REQUEUED_EFFECTS = frozenset({"checkpoint_requeue", "requeue", "suspended"})


@dataclass(frozen=True, slots=True)
class Envelope:
    start_p50_minutes: int | None = None
    start_p95_minutes: int | None = None
    idle_capacity_lent: bool | None = None
    preemptible: bool | None = None
    reclaim_notice_minutes: int | None = None
    reclaim_effect: str = ""
    health_check_minutes: int | None = None
