"""Flight Recorder dumps across ranks: who never joined, who disagrees, whose dump is missing.

Per process group, each rank's last enqueued and last completed collective sequence number comes
from `pg_status` when present (it survives ring-buffer eviction), else from the entries. The
collective the job is stuck on is the first one not completed everywhere; the minority side of
"entered it" / "never entered it" is the suspect (a rank that issued an extra collective is the
minority that is ahead). Entries at the same sequence number are compared field by field.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from .collectives import Collectives, DumpSummary, RankPg, SignatureGroup
from .model import Event

_FIELDS = ("profiling_name", "input_sizes", "input_dtypes", "output_sizes")
_MAX_MISMATCHES = 50


@dataclass(frozen=True, slots=True)
class Mismatch:
    seq: int
    pg: str
    field: str
    ranks: list[int]  # the ranks that disagree with the majority
    values: list[str]  # the distinct values, majority first


@dataclass(slots=True)
class FlightRecorderResult:
    dumps: dict[int, str] = field(default_factory=dict)
    missing_dumps: list[int] = field(default_factory=list)
    suspects: list[int] = field(default_factory=list)
    stuck: dict[str, int] = field(default_factory=dict)  # pg → first collective not completed
    waiting: set[int] = field(default_factory=set)  # ranks inside a collective nobody completed
    mismatches: list[Mismatch] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _show(value: Any) -> str:
    try:
        return json.dumps(value)  # tuples print as lists, as in the dump's JSON form
    except (TypeError, ValueError):
        return repr(value)


def _config_of(cfg: Any, pg: str) -> dict[str, Any] | None:
    """`pg_config` is keyed by name (a string) or by number; gloo keys its one group by ''."""
    if not isinstance(cfg, dict):
        return None
    for key in (pg, int(pg) if pg.isdigit() else None):
        if key is not None and isinstance(cfg.get(key), dict):
            return cast(dict[str, Any], cfg[key])
    named = [v for v in cfg.values() if isinstance(v, dict) and str(v.get("name")) == pg]
    if named:
        return cast(dict[str, Any], named[0])
    if len(cfg) == 1 and isinstance(cfg.get(""), dict):
        return cast(dict[str, Any], cfg[""])
    return None


def _members(dumps: dict[int, DumpSummary], pg: str) -> set[int] | None:
    for dump in dumps.values():
        one = _config_of(dump.pg_config, pg)
        if one is not None:
            ranks = one.get("ranks")
            if one.get("desc") in ("default_pg", ""):
                return None
            if isinstance(ranks, str):
                return {int(x) for x in re.findall(r"\d+", ranks[:1_000_000])}
            if isinstance(ranks, list | tuple):
                return {int(x) for x in ranks if isinstance(x, int)}
    return None


def _time(ns: Any) -> datetime | None:
    if not isinstance(ns, int) or ns <= 0:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def analyse_dumps(
    collectives: Collectives, sources: dict[int, str], *, world_size: int | None
) -> FlightRecorderResult:
    """Cross-rank analysis of the dumps added to `collectives`."""
    result = FlightRecorderResult(dumps=dict(sources))
    dumps = collectives.dumps
    if not dumps:
        return result
    expected = world_size
    if expected is None:
        listed = default_ranks(dumps)
        expected = max(listed | set(dumps)) + 1 if listed else max(dumps) + 1
    result.missing_dumps = sorted(set(range(expected)) - set(dumps))
    for rank in result.missing_dumps:
        result.events.append(
            Event(None, rank, None, "flight recorder", 0, "missing_record",
                  f"no Flight Recorder dump for rank {rank}",
                  {"what": "flight recorder dump", "tier": 2})
        )  # fmt: skip
    per: dict[str, dict[int, RankPg]] = defaultdict(dict)
    for rank, dump in dumps.items():
        for pg, state in dump.pgs.items():
            per[pg][rank] = state
    for pg, ranks in sorted(per.items()):
        members = _members(dumps, pg)
        present = {r: s for r, s in ranks.items() if members is None or r in members}
        _stuck(pg, present, sources, result, size=len(members) if members else expected)
        if len(result.mismatches) < _MAX_MISMATCHES:
            _compare(pg, collectives.columns.get(pg, {}), present, sources, result)
    flagged = ("collective_desync", "collective_mismatch")
    result.suspects = sorted(
        {e.rank for e in result.events if e.rank is not None and e.kind in flagged}
    )
    return result


def default_ranks(dumps: dict[int, DumpSummary]) -> set[int]:
    """The ranks `pg_config` lists for the default process group (the world)."""
    for dump in dumps.values():
        cfg = dump.pg_config
        if isinstance(cfg, dict):
            gloo = len(cfg) == 1 and "" in cfg  # gloo's one unnamed group is the world
            for pg in cfg.values():
                if isinstance(pg, dict) and (pg.get("desc") == "default_pg" or gloo):
                    ranks = pg.get("ranks")
                    text = ranks if isinstance(ranks, str) else str(ranks)
                    return {int(x) for x in re.findall(r"\d+", text[:1_000_000])}
    return set()


def _stuck(
    pg: str,
    ranks: dict[int, RankPg],
    sources: dict[int, str],
    result: FlightRecorderResult,
    *,
    size: int,
) -> None:
    if len(ranks) < 2:
        return
    stuck = min(s.completed for s in ranks.values()) + 1
    if all(s.completed < 0 for s in ranks.values()):
        # No completion anywhere (dumps without `state` or `pg_status`): compare how far each
        # rank enqueued; the ones behind the furthest are the candidates.
        stuck = max(s.enqueued for s in ranks.values())
    entered = {r for r, s in ranks.items() if s.enqueued >= stuck}
    if not entered:
        return
    result.stuck[pg] = stuck
    result.waiting |= entered
    missing = set(ranks) - entered
    if not missing and len(ranks) < size:
        result.notes.append(
            f"process group {pg}: the {len(ranks)} ranks with a dump all entered collective "
            f"{stuck} and none completed it; {size - len(ranks)} rank(s) left no usable dump, "
            "so one that never entered it cannot be ruled out"
        )
        return
    if not missing:
        result.notes.append(
            f"process group {pg}: every rank with a dump entered collective {stuck} and none "
            "completed it — a hang inside the collective (transport or GPU), not a rank that "
            "skipped it"
        )
        return
    # The minority is the odd one out: few ranks behind, or few ranks that ran ahead.
    behind = len(missing) <= len(entered)
    suspects = missing if behind else entered
    for rank in sorted(suspects):
        state = ranks[rank]
        if behind:
            text = (f"rank {rank} never entered collective {stuck} of process group {pg} "
                    f"(last enqueued {state.enqueued}, last completed {state.completed}); "
                    f"{len(entered)} ranks wait in it")  # fmt: skip
        else:
            text = (f"rank {rank} entered collective {stuck} of process group {pg} that "
                    f"{len(missing)} other ranks never called (extra collective)")  # fmt: skip
        result.events.append(
            Event(_time(state.last_ns), rank, None, sources.get(rank, "flight recorder"), 0,
                  "collective_desync", text,
                  {"seq": stuck, "pg": pg, "last_enqueued": state.enqueued,
                   "last_completed": state.completed, "tier": 1, "from": "flight recorder",
                   "behind": behind, "waiting": len(entered) if behind else len(missing)})
        )  # fmt: skip


def _compare(
    pg: str,
    column: dict[int, dict[bytes | str, SignatureGroup]],
    ranks: dict[int, RankPg],
    sources: dict[int, str],
    result: FlightRecorderResult,
) -> None:
    order: dict[int, int] | None = None
    for seq in sorted(column):
        groups = column[seq]
        if len(groups) < 2:
            continue  # the common case: every rank agrees
        if order is None:
            order = {r: i for i, r in enumerate(ranks)}
        # Ranks in the order their dumps arrived, as a majority tie goes to the first seen.
        found = sorted(
            ((order[r], r, group, ns) for group in groups.values() for r, ns in group.members()
             if r in order),
            key=lambda item: item[0],
        )  # fmt: skip
        sigs = {r: group for _, r, group, _ in found}
        if len(sigs) < 2 or len({id(g) for g in sigs.values()}) == 1:
            continue  # what disagreed came from ranks outside this group
        times = {r: ns for _, r, _, ns in found}
        for i, name in enumerate(_FIELDS):
            values = {r: _show(g.raw[i]) for r, g in sigs.items()}
            counts = Counter(values.values())
            if len(counts) < 2:
                continue
            majority = counts.most_common(1)[0][0]
            odd = sorted(r for r, v in values.items() if v != majority)
            result.mismatches.append(
                Mismatch(seq, pg, name, odd, [majority, *sorted(set(counts) - {majority})])
            )
            for rank in odd[:8]:
                result.events.append(
                    Event(
                        _time(times[rank]),
                        rank,
                        None,
                        sources.get(rank, "flight recorder"),
                        0,
                        "collective_mismatch",
                        f"rank {rank}: {name} {values[rank]} at collective {seq} of process "
                        f"group {pg}; the other ranks have {majority}",
                        {"seq": seq, "pg": pg, "field": name, "tier": 1, "from": "flight recorder"},
                    )
                )
            if len(result.mismatches) >= _MAX_MISMATCHES:
                return
            break  # one field per sequence number is enough to name it
