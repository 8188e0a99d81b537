"""Reclaims against the terms: whether running jobs may be reclaimed at all, whether a reclaimed
job went back to the queue as promised, and how long it took to run again (held to the promised
p95 time to running). The notice given is not in the scheduler's records, so it is not judged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from .envelope import REQUEUED_EFFECTS, Envelope
from .model import Reclaim
from .receipts import minutes


@dataclass(frozen=True, slots=True)
class ReclaimCheck:
    reclaim: Reclaim
    back_minutes: Decimal | None  # reclaim → running again
    misses: tuple[str, ...]


def check_reclaims(reclaims: Sequence[Reclaim], envelope: Envelope) -> list[ReclaimCheck]:
    return [_check(r, envelope) for r in sorted(reclaims, key=lambda r: r.at)]


def _check(r: Reclaim, terms: Envelope) -> ReclaimCheck:
    back = minutes(r.at, r.running_again_at) if r.running_again_at else None
    misses: list[str] = []
    if terms.preemptible is False:
        misses.append("the terms say running jobs are never reclaimed")
    if terms.reclaim_effect in REQUEUED_EFFECTS and not r.requeued:
        misses.append("the terms say a reclaimed job is requeued; it was not")
    p95 = terms.start_p95_minutes
    if r.requeued and p95 is not None:
        if back is None:
            misses.append("requeued, and not running again by the end of the records")
        elif back > p95:
            misses.append(f"running again after {back} min, over the promised p95 of {p95} min")
    return ReclaimCheck(r, back, tuple(misses))
