"""Deaths by signal, and what launchers and watchdogs say about who failed first.

torchrun's ChildFailedError gives each rank's exit code; Slurm's `srun: error: node: task N:
Killed` and a container's `Exit Code: 137` say the same. SIGKILL, SIGABRT, SIGSEGV and SIGBUS on
a rank that was not itself waiting are initiating evidence; SIGTERM is the agent tearing the
group down, and a rank that timed out or lost its peer before it died only waited.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from .model import Event

SIGNAL_NAMES = {9: "SIGKILL", 6: "SIGABRT", 11: "SIGSEGV", 7: "SIGBUS", 15: "SIGTERM", 2: "SIGINT"}
CRASH = frozenset({9, 6, 11, 7})
_DEATH_KINDS = frozenset({"launcher_summary", "signal", "scheduler"})


def _waited(e: Event) -> bool:
    if e.kind in ("nccl_timeout", "gloo"):
        return True
    return e.kind in ("python_exception", "cpp_terminate") and e.secondary


def _before(a: Event, b: Event) -> bool:
    """`a` was logged before `b`, as far as the logs tell (same file: line order; else time).
    When they cannot tell, yes: an exception is not explained away on a guess."""
    if a.source == b.source:
        return a.line_no < b.line_no
    if a.time_utc is not None and b.time_utc is not None:
        return a.time_utc <= b.time_utc
    return True


def waited_ranks(events: list[Event]) -> set[int]:
    """Ranks that timed out or lost their peer before anything of their own went wrong. A rank
    whose own traceback (a causal exception) comes first did not merely wait."""
    own: dict[int, list[Event]] = {}
    for e in events:
        if e.rank is not None and e.kind == "python_exception" and not e.secondary:
            own.setdefault(e.rank, []).append(e)
    waited: set[int] = set()
    for e in events:
        if e.rank is None or e.rank in waited or not _waited(e):
            continue
        if not any(_before(x, e) for x in own.get(e.rank, ())):
            waited.add(e.rank)
    return waited


def mark_deaths(events: list[Event]) -> list[int]:
    """Promote crash-signal deaths of ranks that did not wait; returns those ranks."""
    waited = waited_ranks(events)
    promoted: set[int] = set()
    for e in events:
        num = e.detail.get("signal")
        if e.kind not in _DEATH_KINDS or num not in CRASH:
            continue
        if e.rank is None:
            _agent_death(e, events)
            continue
        e.detail["death"] = SIGNAL_NAMES[num]
        if e.rank in waited:
            e.detail["waited_first"] = True
            continue
        e.detail.update(secondary=False, tier=1)
        promoted.add(e.rank)
    _oom_victims(events)
    return sorted(promoted)


def _agent_death(e: Event, events: list[Event]) -> None:
    """torchrun's agent names the worker it lost by its local rank (`failed (exitcode: -9)
    local_rank: 5 (pid: 22) of binary: …`), DeepSpeed's launcher by its command line (`['python',
    …, '--local_rank=0', …] exits with return code = -9`). Where nothing names the node, the rank
    is unknown, but a worker killed while no one in its log had waited is still the first death
    there."""
    if e.kind != "signal" or "local_rank" not in e.detail:
        return
    if "failed (exitcode" not in e.text and e.detail.get("launcher") != "deepspeed":
        return
    pid = _AGENT_PID.search(e.text)
    entry = None if pid is None else next(
        (o for o in events if o.kind == "launcher_summary" and o.source == e.source
         and o.detail.get("pid") == int(pid.group(1))), None)  # fmt: skip
    if entry is not None:  # the same death as the summary's entry, which names rank and host
        e.rank, e.node = entry.rank, e.node or entry.node
        e.detail["pid"] = entry.detail["pid"]
        return
    if any(o.source == e.source and o.line_no < e.line_no and _waited(o) for o in events):
        return
    e.detail.update(death=SIGNAL_NAMES[e.detail["signal"]], secondary=False, tier=1)


_AGENT_PID = re.compile(r"local_rank: \d+ \(pid: (\d+)\)")


_JOB_PROCESS = ("python", "pt_main", "torchrun", "deepspeed")


def _oom_victims(events: list[Event]) -> None:
    """An OOM kill names a pid: a rank that died by SIGKILL with that pid is its victim; a
    kill of some other process on that node is context for the owner, not the first failure."""
    kills = {(e.node, e.detail["pid"]): e.rank for e in events
             if e.detail.get("death") == "SIGKILL" and "pid" in e.detail}  # fmt: skip
    killed_nodes = {node for node, _ in kills}
    for e in events:
        if e.kind != "oom" or e.rank is not None or "pid" not in e.detail:
            continue
        rank = kills.get((e.node, e.detail["pid"]))
        process = str(e.detail.get("process", ""))
        if rank is not None:
            e.rank = rank
        elif e.node in killed_nodes and not process.startswith(_JOB_PROCESS):
            e.detail.update(other_process=True, secondary=True, tier=3)


def weigh_hangs(events: list[Event]) -> None:
    """A rank whose NCCL watchdog hung before any other rank timed out was stuck in a CUDA or
    NCCL call of its own: weak evidence against it. A hang after the others timed out is the
    abort itself hanging, a consequence like the timeouts."""
    timeouts = [(e.time_utc, e.rank) for e in events if e.time_utc
                and e.kind == "nccl_timeout" and not e.detail.get("hang")]  # fmt: skip
    for e in events:
        if not e.detail.get("hang") or e.time_utc is None or e.rank is None:
            continue
        if not any(t <= e.time_utc and r != e.rank for t, r in timeouts):
            e.detail.update(tier=2, cause="watchdog hang before any other rank timed out: a "
                            "CUDA or NCCL call on this rank blocked")  # fmt: skip


def watchdog_disagreement(events: list[Event]) -> list[Event]:
    """NCCL watchdog timeouts of one process group at different SeqNums: the ranks at the lowest
    never entered the collective the others wait in (cross-rank evidence, like a desync report)."""
    by_pg: dict[str, dict[int, int]] = defaultdict(dict)
    firsts: dict[tuple[str, int], Event] = {}
    for e in events:
        seq = e.detail.get("seq")
        if e.kind != "nccl_timeout" or e.rank is None or not isinstance(seq, int):
            continue
        pg = str(e.detail.get("pg", "0"))
        by_pg[pg][e.rank] = max(seq, by_pg[pg].get(e.rank, seq))
        firsts.setdefault((pg, e.rank), e)
    out: list[Event] = []
    for pg, seqs in by_pg.items():
        if len(set(seqs.values())) < 2:
            continue
        low = min(seqs.values())
        behind = sorted(r for r, s in seqs.items() if s == low)
        if len(behind) * 2 >= len(seqs):
            continue  # no minority: the numbers say nothing about one rank
        top = max(seqs.values())
        for rank in behind[:8]:
            src = firsts[(pg, rank)]
            detail: dict[str, Any] = {"seq": top, "pg": pg, "tier": 1, "behind": True,
                                      "from": "watchdog SeqNum", "reported_seq": low}  # fmt: skip
            out.append(Event(src.time_utc, rank, src.node, src.source, src.line_no,
                             "collective_desync",
                             f"rank {rank}'s watchdog timed out at SeqNum {low} while "
                             f"{len(seqs) - len(behind)} other rank(s) wait at SeqNum {top}",
                             detail))  # fmt: skip
    return out


def launcher_reason(root: Event, chosen_rank: int | None, *, own_traceback: bool = False) -> str:
    """Why torchrun's 'Root Cause (first observed failure)' was or was not taken.
    `own_traceback`: that rank logged a causal exception of its own."""
    code = root.detail.get("exitcode")
    num = root.detail.get("signal")
    how = f"exit code {code}" if code is not None else "an unknown exit code"
    if num is not None:
        how += f" ({SIGNAL_NAMES.get(num, f'signal {num}')})"
    head = f"torchrun's 'first observed failure' is rank {root.rank} on {root.node} with {how}"
    if root.rank == chosen_rank:
        return f"{head}: taken, it agrees with the evidence above"
    if own_traceback:
        return (f"{head}: not taken, the evidence above comes first; that rank's own "
                "exception is listed as a candidate")  # fmt: skip
    if root.detail.get("waited_first"):
        return f"{head}: not taken, that rank timed out or lost its peer before it died"
    if num == 15:
        return f"{head}: not taken, SIGTERM is the agent tearing the group down"
    if code is not None and code > 0:
        return (f"{head}: not taken, only the first process that exited on that node; its "
                "own error is a consequence")  # fmt: skip
    return f"{head}: not taken, only the first process that exited on that node"


def ambiguous_lines(events: list[Event]) -> int:
    """Lines that name only a local rank (torchrun's `[<role><local_rank>]:` prefix, its
    agent's `failed (exitcode: -9) local_rank: 5`), in a log that does not say which node wrote
    them: their rank cannot be known."""
    return sum(1 for e in events if e.rank is None and e.node is None and "local_rank" in e.detail)
