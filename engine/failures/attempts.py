"""torchrun's elastic attempts: a job run with `--max-restarts N` is several runs in one log.

The agent logs each rendezvous (`Rendezvous complete for workers. Result: restart_count=N`, at
INFO) and each restart (`Worker group FAILED. 1/1 attempts left; will restart worker group`).
Every line of an agent's log after a restart belongs to the next attempt. Files that carry no
such line (kernel logs, dumps, a scheduler's log) are placed by time when the agent's lines
have times; otherwise their attempt is unknown and they count with the attempt that ended the
job, which is where a bundle collected after the failure mostly comes from.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from .model import UNNAMED_NODE, Event
from .report import SecondaryGroup
from .timestamps import Year, parse_line_time

_RESTART = ("will restart worker group", "Restarting workers")
_RENDEZVOUS = "Rendezvous complete for workers"
# Agents of one round complete their rendezvous within moments of each other; a later round
# with no restart line before it comes after the first round's workers ran and failed.
_SAME_ROUND = timedelta(seconds=5)


def attempt_marks(text: str, *, year: Year, tz: tzinfo) -> list[tuple[int, int, datetime | None]]:
    """(first line, attempt, time of the line that opened it) for each attempt after the first.

    A restart line opens the next attempt; the rendezvous that follows it is the same attempt.
    A second rendezvous without a restart line before it (the restart line was filtered out of
    the log) opens one too. Several agents may write to one file (`srun` without a job step per
    node): their restart lines before the next rendezvous are one restart, and their rendezvous
    lines within `_SAME_ROUND` of each other one round."""
    hits: list[tuple[int, bool]] = []
    for needle, restart in ((_RENDEZVOUS, False), *((r, True) for r in _RESTART)):
        pos = text.find(needle)
        while pos != -1:
            hits.append((pos, restart))
            pos = text.find(needle, pos + len(needle))
    marks: list[tuple[int, int, datetime | None]] = []
    attempt, pending = 0, False
    last: tuple[datetime | None] | None = None  # the previous rendezvous's time, once seen
    line_no, counted = 1, 0
    for pos, restart in sorted(hits):
        line_no += text.count("\n", counted, pos)
        counted = pos
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        when = parse_line_time(text[start : end if end != -1 else len(text)], year=year, tz=tz)
        if restart:
            if not pending:
                attempt, pending = attempt + 1, True
                marks.append((line_no + 1, attempt, when))
            continue
        same_round = (
            last is not None and last[0] is not None and when is not None
            and abs(when - last[0]) <= _SAME_ROUND
        )  # fmt: skip
        if not pending and last is not None and not same_round:
            attempt += 1
            marks.append((line_no, attempt, when))
        pending, last = False, (when,)
    return marks


@dataclass(frozen=True, slots=True)
class Attempts:
    """Where each attempt starts: by line in the agents' logs, by time elsewhere."""

    marks: dict[str, list[tuple[int, int, datetime | None]]]
    starts: list[tuple[datetime, int]]  # (earliest time an agent opened it, attempt)
    restarts: int

    def place(self, events: list[Event]) -> None:
        """Sets `detail["attempt"]` where the evidence tells."""
        if not self.restarts:
            return
        times = [t for t, _ in self.starts]
        for e in events:
            if "attempt" in e.detail:
                continue
            ms = self.marks.get(e.source)
            if ms is not None:
                i = bisect.bisect_right([line for line, _, _ in ms], e.line_no)
                e.detail["attempt"] = ms[i - 1][1] if i else 0
            elif e.time_utc is not None and times:
                i = bisect.bisect_right(times, e.time_utc)
                e.detail["attempt"] = self.starts[i - 1][1] if i else 0


def read_attempts(texts: list[tuple[str, str]], *, year: Year, tz: tzinfo) -> Attempts:
    marks = {name: m for name, text in texts if (m := attempt_marks(text, year=year, tz=tz))}
    starts: dict[int, datetime] = {}
    for ms in marks.values():
        for _, attempt, when in ms:
            if when is not None and (attempt not in starts or when < starts[attempt]):
                starts[attempt] = when
    restarts = max((a for ms in marks.values() for _, a, _ in ms), default=0)
    return Attempts(marks, sorted((t, a) for a, t in starts.items()), restarts)


def by_attempt(events: list[Event], last: int) -> dict[int, list[Event]]:
    """The events of each attempt; those of unknown attempt count with the last one (which is
    there, empty, when nothing was found)."""
    out: dict[int, list[Event]] = defaultdict(list)
    out[last] = []
    for e in events:
        attempt = e.detail.get("attempt")
        out[attempt if isinstance(attempt, int) else last].append(e)
    return dict(sorted(out.items()))


@dataclass(slots=True)
class AttemptFailure:
    """One attempt's verdict: its first failure, rank, node, owner, confidence and evidence."""

    attempt: int
    first_failure: Event | None
    initiating_rank: int | None
    initiating_node: str | None
    confidence: str
    reasons: list[str]
    suggested_owner: str
    owner_reasons: list[str]
    candidates: list[dict[str, Any]]
    chain: list[Event]
    secondaries: list[SecondaryGroup]
    secondary_ranks: list[int]
    launcher_root_cause: Event | None
    missing: list[str]
    restarts: int = 0  # of the whole job

    def summary(self) -> str:
        return headline_summary(self, attempt=self.attempt if self.restarts else None)

    def to_json(self) -> dict[str, Any]:
        """The keys an analysis's headline has (`HEADLINE_KEYS`), for this attempt."""
        return {"attempt": self.attempt, **headline_json(self)}


def headline_summary(v: Any, *, attempt: int | None) -> str:
    """One line for a verdict (an analysis, or one attempt of a restarted job)."""
    if v.first_failure is None and v.candidates:
        ranks = ", ".join(str(c["rank"]) for c in v.candidates[:8])
        return (
            f"no initiating rank named: {len(v.candidates)} candidate(s) the evidence cannot "
            f"tell apart (ranks {ranks}); confidence {v.confidence}"
        )
    if v.first_failure is None:
        return "no initiating event found"
    where = f"rank {v.initiating_rank}" if v.initiating_rank is not None else "rank ?"
    tries = f"attempt {attempt} of {v.restarts + 1}; " if attempt is not None else ""
    cause = v.first_failure.detail.get("cause")
    what = f"{v.first_failure.kind}: {str(cause)[:160]}" if cause else v.first_failure.kind
    return (
        f"{where} on {v.initiating_node or UNNAMED_NODE}: {what} "
        f"({tries}1 initiating, {len(v.secondary_ranks)} secondary; confidence {v.confidence})"
    )


def headline_json(v: Any) -> dict[str, Any]:
    """The verdict keys an analysis and each attempt of a restarted job share."""
    return {
        "summary": v.summary(),
        "first_failure": v.first_failure.to_json() if v.first_failure else None,
        "initiating_rank": v.initiating_rank,
        "initiating_node": v.initiating_node,
        "confidence": v.confidence,
        "reasons": v.reasons,
        "candidates": v.candidates,
        "suggested_owner": v.suggested_owner,
        "owner_reasons": v.owner_reasons,
        "chain": [e.to_json() for e in v.chain],
        "secondary_ranks": v.secondary_ranks,
        "secondaries": [g.to_json() for g in v.secondaries],
        "launcher_root_cause": v.launcher_root_cause.to_json() if v.launcher_root_cause else None,
    }


# What changes when another attempt's failure heads the analysis (`stored.first_ever`).
HEADLINE_KEYS = (
    "attempt", "summary", "first_failure", "initiating_rank", "initiating_node", "confidence",
    "reasons", "candidates", "suggested_owner", "owner_reasons", "chain", "secondary_ranks",
    "secondaries", "launcher_root_cause",
)  # fmt: skip


def headline(failures: list[AttemptFailure], *, first_ever: bool) -> AttemptFailure:
    """The failure that ended the job (the last attempt's), or the first ever; an attempt
    with no failure found gives way to the nearest one with one."""
    found = [f for f in failures if f.first_failure is not None] or failures
    return found[0] if first_ever else found[-1]
