"""What "high" confidence may claim, and the other candidates when it may not.

"High" stands only when one rank's evidence is first by a clear margin and unlike its peers'.
Two patterns make the first event a poor witness, and both give "low":

- the same evidence on several ranks (every rank but one aborted with SIGABRT): whichever of
  them sorts first is an accident of clocks and log order;
- a death by signal that comes after other ranks' watchdog timeouts: those ranks were waiting
  for someone; the rank killed after them is as likely one of the waiters torn down as the
  rank that stopped. This is the "loudest rank" of a collective cascade.

When both hold and such a shared death is the only causal evidence, no rank is named at all:
the verdict is withdrawn, every rank that shares it becomes a candidate, and the reasons say
which evidence would decide (the rank that never entered the collective the others waited in).

The other candidates are listed so that the reader can weigh them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .model import Event
from .owner import DECIDES, UNDETERMINED
from .verdict import Verdict, decide_owner, is_corroboration, stated_at, tier

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


def calibrate(
    v: Verdict, events: list[Event], *, when: Clock, launcher_root: Event | None
) -> list[dict[str, Any]]:
    """Lowers `v.confidence` where the evidence is shared or late, or withdraws the verdict
    (see the module doc); returns the other candidates (rank, node, kind, time, why), the
    first few, when the verdict is not high."""
    first = v.event
    if first is None or first.rank is None:
        return []
    found: dict[int, dict[str, Any]] = {}

    def add(e: Event, why: str) -> None:
        if e.rank is None or e.rank in found or e.rank == v.rank:
            return
        found[e.rank] = {
            "rank": e.rank,
            "node": e.node,
            "kind": e.kind,
            "why": why,
            **_time(e, when),
        }

    same = signature(first)
    alike = [e for e in events if _causal(e) and e.rank != first.rank and signature(e) == same]
    late = _timeouts_before(first, events, when)
    alike = _judge(v, first, alike, late, events, when)
    for e in alike:
        add(e, "the same evidence")
    start = when(first)
    for e in events:
        t = when(e)
        if (
            v.event is not None
            and _causal(e)
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


def _judge(
    v: Verdict,
    first: Event,
    alike: list[Event],
    late: list[Event],
    events: list[Event],
    when: Clock,
) -> list[Event]:
    """Withdraw, defer or lower the verdict; returns the ranks' events that share its evidence."""
    if alike and late and _only_shared_death(signature(first), events):
        # Cross-rank evidence, else a weak sign against one rank (a watchdog that hung before
        # anyone timed out), says what the shared death cannot.
        named = [e for e in events if is_corroboration(e)] or [
            e for e in events
            if tier(e) == 2 and e.kind != "missing_record" and e.rank is not None
        ]  # fmt: skip
        if named:
            _defer(v, first, alike, named, events, when)
        else:
            _withdraw(v, first, alike, late, events, when)
        return [first, *alike]
    if alike:
        _shared(v, first, alike)
    if late and v.event is first:
        _after_timeouts(v, first, late, when)
    return alike


def _shared(v: Verdict, first: Event, alike: list[Event]) -> None:
    ranks = sorted({e.rank for e in alike if e.rank is not None})
    v.confidence = "low"
    v.reasons.append(
        f"rank(s) {ranks[:12]} show the same evidence as rank {first.rank} "
        f"({first.detail.get('death') or first.kind}): which of them came first cannot be "
        "told from it"
    )


def _time(e: Event, when: Clock) -> dict[str, Any]:
    """A candidate's time: its line's own, else only the bounds its neighbours give."""
    t = when(e)
    if t is None or not e.detail.get("time_inferred"):
        return {"time": t.isoformat() if t else None}
    bounds = e.detail.get("time_range") or [None, None]
    return {"time": None, "time_range": {"after": bounds[0], "before": bounds[1]}}


def _timeouts_before(first: Event, events: list[Event], when: Clock) -> list[Event]:
    """Other ranks' watchdog timeouts surely before `first`'s death (none: `first` is no
    death): a timeout whose time is borrowed from a neighbour counts by its upper bound."""
    start = when(first)
    if not first.detail.get("death") or start is None:
        return []
    return [
        e for e in events
        if e.kind == "nccl_timeout" and e.rank != first.rank and (t := when(e)) is not None
        and t < start and _latest(e, t) < start
    ]  # fmt: skip


def _latest(e: Event, t: datetime) -> datetime:
    """The latest `e` can have happened: its own time, or the upper bound of a borrowed one
    (shifted as its clock shifts `t`); unbounded above when nothing follows it."""
    if not e.detail.get("time_inferred") or e.time_utc is None:
        return t
    high = (e.detail.get("time_range") or [None, None])[1]
    return (
        datetime.fromisoformat(high) - (e.time_utc - t)
        if high
        else datetime.max.replace(tzinfo=t.tzinfo)
    )


def _inferred(*events: Event) -> bool:
    return any(e.detail.get("time_inferred") for e in events)


def _after_timeouts(v: Verdict, first: Event, earlier: list[Event], when: Clock) -> None:
    start = when(first)
    assert start is not None
    t0, head = min(((t, e) for e in earlier if (t := when(e)) is not None), key=lambda p: p[0])
    ranks = sorted({e.rank for e in earlier if e.rank is not None})
    minutes = (start - t0).total_seconds() / 60
    gap = f"comes {minutes:.1f} min after" if not _inferred(first, head) else "comes after"
    v.confidence = "low"
    v.reasons.append(
        f"rank {first.rank}'s {first.detail['death']} {stated_at(first, start)} {gap} the "
        f"watchdog timeout(s) of rank(s) {ranks[:12] or '?'} ({stated_at(head, t0)}): a rank "
        "killed after its peers timed out may be one of the waiters torn down, not the rank "
        "that stopped"
    )


def _only_shared_death(same: tuple[Any, ...], events: list[Event]) -> bool:
    """Every causal event in the logs says `same`, with or without a rank."""
    return all(
        signature(e) == same
        for e in events
        if tier(e) <= 1 and not e.secondary and not is_corroboration(e)
    )


def _defer(
    v: Verdict,
    first: Event,
    alike: list[Event],
    named: list[Event],
    events: list[Event],
    when: Clock,
) -> None:
    """The shared death is the group being torn down, so the logs say nothing causal: the
    cross-rank evidence (Flight Recorder, a desync report) or weak evidence names the rank, as
    `choose` lets them when the logs are silent."""
    pick = min(named, key=lambda e: (e.kind != "collective_mismatch", e.rank or 0))
    dead = sorted({e.rank for e in [first, *alike] if e.rank is not None})
    node = pick.node or next((e.node for e in alike if e.rank == pick.rank and e.node), None)
    cross = is_corroboration(pick)
    v.event, v.rank, v.node = pick, pick.rank, node
    v.confidence = "medium" if cross else "low"
    said = pick.detail.get("from", "cross-rank") if cross else f"weak ({pick.kind})"
    stale = ("earliest causal event", "Flight Recorder / desync")
    v.reasons = [r for r in v.reasons if not r.startswith(stale)]
    v.reasons.insert(
        0,
        f"the only causal evidence in the logs, {first.detail['death']} on rank(s) "
        f"{dead[:12]}, comes after other ranks' watchdog timeouts and is the group being torn "
        f"down; {said} evidence names rank {pick.rank}",
    )
    if pick.detail.get("why"):
        v.reasons.append(f"{pick.detail.get('cause', pick.kind)}: {pick.detail['why']}")
    decide_owner(v, events, when)


def _withdraw(
    v: Verdict,
    first: Event,
    alike: list[Event],
    late: list[Event],
    events: list[Event],
    when: Clock,
) -> None:
    """No initiating rank: every causal event is the same death, after watchdog timeouts. The
    order in which torn-down ranks died is no evidence of which one stopped."""
    death = first.detail["death"]
    dead = sorted({e.rank for e in [first, *alike] if e.rank is not None})
    timeouts = [e for e in events if e.kind == "nccl_timeout" and e.rank is not None]
    waited = sorted({e.rank for e in timeouts if e.rank is not None})
    seqs = sorted(
        {(e.detail["seq"], e.detail.get("op") or "") for e in timeouts if "seq" in e.detail}
    )
    where = " or ".join(f"collective {s}" + (f" ({op})" if op else "") for s, op in seqs[:3])
    t0, head = min(((t, e) for e in late if (t := when(e)) is not None), key=lambda p: p[0])
    last = max(t for e in [first, *alike] if (t := when(e)) is not None)
    minutes = (last - t0).total_seconds() / 60
    later = "later" if _inferred(first, *alike, head) else f"up to {minutes:.1f} min later"
    v.event, v.rank, v.node, v.confidence = None, None, None, "low"
    v.reasons = [r for r in v.reasons if not r.startswith("earliest causal event")]
    v.reasons.insert(
        0,
        f"no initiating rank named: rank(s) {dead[:12]} show the same evidence ({death}), the "
        f"only causal evidence, each after the watchdog timeout(s) of rank(s) {waited[:12]} "
        f"(the first {stated_at(head, t0)}; the deaths {later}): a "
        "death shared by several ranks after their peers timed out is the group being torn "
        f"down and does not say which rank stopped; {DECIDES}: the rank that never entered "
        f"{where or 'the collective the others timed out in'}, from every rank's Flight "
        "Recorder dump (or torchfrtrace's report) or every rank's own log",
    )
    v.owner = UNDETERMINED
    v.owner_reasons = [f"no initiating rank: {death} shared by rank(s) {dead[:12]} after "
                       "watchdog timeouts is no one's fault by itself"]  # fmt: skip
