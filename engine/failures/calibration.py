"""What "high" confidence may claim, and the other candidates when it may not.

"High" stands only when one rank's evidence is first by a clear margin and unlike its peers'.
Two patterns make the first event a poor witness, and both give "low":

- the same evidence on several ranks (every rank but one aborted with SIGABRT): whichever of
  them sorts first is an accident of clocks and log order;
- a death by signal that comes after other ranks' watchdog timeouts: those ranks were waiting
  for someone; the rank killed after them is as likely one of the waiters torn down as the
  rank that stopped. This is the "loudest rank" of a collective cascade.

The other candidates are listed so that the reader can weigh them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .model import Event
from .verdict import Verdict, is_corroboration, tier

Clock = Callable[[Event], datetime | None]
_MAX_CANDIDATES = 16
_DIGITS = re.compile(r"\d+")


def signature(e: Event) -> tuple[Any, ...]:
    """What the evidence says, without who said it: a death is its signal whichever line
    reports it; an exception its type and message with the numbers taken out."""
    d = e.detail
    if d.get("death"):
        return ("death", d["death"])
    message = _DIGITS.sub("N", e.text.split(":", 1)[-1] if d.get("exc_type") else "")
    return (e.kind, d.get("exc_type"), d.get("xid"), d.get("cause"), message)


def _causal(e: Event) -> bool:
    return tier(e) <= 1 and not e.secondary and not is_corroboration(e) and e.rank is not None


def _at(t: datetime | None) -> str:
    return f"{t:%Y-%m-%d %H:%M:%S} UTC" if t is not None else "an unknown time"


def calibrate(
    v: Verdict, events: list[Event], *, when: Clock, launcher_root: Event | None
) -> list[dict[str, Any]]:
    """Lowers `v.confidence` where the evidence is shared or late; returns the other
    candidates (rank, node, kind, time, why), the first few, when the verdict is not high."""
    first = v.event
    if first is None or first.rank is None:
        return []
    found: dict[int, dict[str, Any]] = {}

    def add(e: Event, why: str) -> None:
        if e.rank is not None and e.rank != first.rank and e.rank not in found:
            t = when(e)
            found[e.rank] = {"rank": e.rank, "node": e.node, "kind": e.kind,
                             "time": t.isoformat() if t else None, "why": why}  # fmt: skip

    same = signature(first)
    alike = [e for e in events if _causal(e) and e.rank != first.rank and signature(e) == same]
    if alike:
        ranks = sorted({e.rank for e in alike if e.rank is not None})
        v.confidence = "low"
        v.reasons.append(
            f"rank(s) {ranks[:12]} show the same evidence as rank {first.rank} "
            f"({first.detail.get('death') or first.kind}): which of them came first cannot be "
            "told from it"
        )
        for e in alike:
            add(e, "the same evidence")
    _after_timeouts(v, first, events, when)
    start = when(first)
    for e in events:
        t = when(e)
        if (
            _causal(e)
            and start is not None
            and t is not None
            and abs(t - start).total_seconds() < 1
        ):
            add(e, "a causal event within a second")
    if launcher_root is not None:
        add(launcher_root, "torchrun's first observed failure")
    for e in events:
        if is_corroboration(e):
            add(e, f"named by {e.detail.get('from', 'cross-rank evidence')}")
    if v.confidence == "high":
        return []
    return sorted(found.values(), key=lambda c: (c["time"] is None, c["time"] or "", c["rank"]))[
        :_MAX_CANDIDATES
    ]


def _after_timeouts(v: Verdict, first: Event, events: list[Event], when: Clock) -> None:
    death, start = first.detail.get("death"), when(first)
    if not death or start is None:
        return
    earlier = [
        e for e in events
        if e.kind == "nccl_timeout" and e.rank != first.rank and (t := when(e)) is not None
        and t < start
    ]  # fmt: skip
    if not earlier:
        return
    t0 = min(t for e in earlier if (t := when(e)) is not None)
    ranks = sorted({e.rank for e in earlier if e.rank is not None})
    minutes = (start - t0).total_seconds() / 60
    v.confidence = "low"
    v.reasons.append(
        f"rank {first.rank}'s {death} at {_at(start)} comes {minutes:.1f} min after the "
        f"watchdog timeout(s) of rank(s) {ranks[:12] or '?'} ({_at(t0)}): a rank killed after "
        "its peers timed out may be one of the waiters torn down, not the rank that stopped"
    )
