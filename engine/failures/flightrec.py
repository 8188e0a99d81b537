"""Flight Recorder dumps across ranks: who never joined, who disagrees, whose dump is missing.

Per process group, each rank's last enqueued and last completed collective sequence number comes
from `pg_status` when present (it survives ring-buffer eviction), else from the entries. The
collective the job is stuck on is the first one not completed everywhere; the minority side of
"entered it" / "never entered it" is the suspect (a rank that issued an extra collective is the
minority that is ahead). Entries at the same sequence number are compared field by field.
"""

from __future__ import annotations

import json
import marshal
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import chain, islice
from operator import itemgetter, lt
from typing import Any, cast

from .errors import DumpError
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


@dataclass(slots=True)
class _RankPg:
    enqueued: int = -1
    completed: int = -1
    last_ns: int | None = None


@dataclass(slots=True)
class DumpSummary:
    """What the cross-rank analysis needs from one dump besides its collectives."""

    pgs: dict[str, _RankPg] = field(default_factory=dict)
    pg_config: dict[str, Any] = field(default_factory=dict)


_NS_MIN, _NS_MAX = -(2**63) + 1, 2**63 - 1
_NS_OTHER = -(2**63)  # the creation time is not an int64; the value itself sits in `other`


class _Group:
    """The ranks that issued the same collective (equal signature) at one sequence number."""

    __slots__ = ("ns", "other", "ranks", "raw")

    def __init__(self, raw: tuple[Any, ...]) -> None:
        self.raw = raw  # the first rank's field values; the others' are equal and dropped
        self.ranks = array("q")
        self.ns = array("q")  # each rank's time_created_ns, in step with `ranks`
        self.other: dict[int, Any] | None = None  # rank → a time that is not an int64

    def add(self, rank: int, ns: Any) -> None:
        self.ranks.append(rank)
        if ns.__class__ is int and _NS_MIN <= ns <= _NS_MAX:
            self.ns.append(ns)
        else:
            self.ns.append(_NS_OTHER)
            if self.other is None:
                self.other = {}
            self.other[rank] = ns

    def members(self) -> Iterator[tuple[int, Any]]:
        for rank, ns in zip(self.ranks, self.ns, strict=True):
            yield rank, ((self.other or {}).get(rank) if ns == _NS_OTHER else ns)

    def drop(self, rank: int) -> None:
        keep = [(r, ns) for r, ns in self.members() if r != rank]
        self.ranks, self.ns, self.other = array("q"), array("q"), None
        for r, ns in keep:
            self.add(r, ns)


class _Block:
    """Ranks whose dumps hold the same collectives: the same groups, sequence numbers,
    signatures and states, entry for entry. Each rank adds one row of creation times. A healthy
    job is a handful of blocks, so a dump costs a few C-level passes instead of a Python step
    per entry; blocks become per-sequence groups (`Collectives.columns`) once, when read."""

    __slots__ = ("names", "ns", "parts", "ranks", "sig")

    def __init__(
        self,
        sig: tuple[tuple[Any, ...], ...],
        names: tuple[str, ...],
        parts: dict[str, tuple[int, int, list[int] | None]],
    ) -> None:
        self.sig = sig  # the columns of _ENTRY_FIELDS but the times
        self.names = names  # each entry's process group
        self.parts = parts  # group → (last enqueued, last completed, its entries or None: all)
        self.ranks = array("q")
        self.ns = array("q")  # row-major: one time per entry, one row per rank in `ranks`


# A dump is untrusted: the fields that are compared, keyed and printed must be plain and bounded
# before anything writes them out (marshal, json, repr all expand shared references).
_SEQS = frozenset({list, tuple})
_INTS = frozenset({int})
_STRS = frozenset({str})
_SCALARS = (str, int, float, bool, type(None))
_MAX_TENSORS, _MAX_DIMS, _MAX_NAME = 1024, 8192, 256


_DICT = frozenset({dict})
_TUPLES = frozenset({tuple})
_LISTS = frozenset({list})
_P2P_TYPES = frozenset({bool, type(None)})
_STATE_TYPES = frozenset({str, type(None)})
_PG_TYPES = frozenset({str, int})
# What the bulk path reads from every entry, in this order; the times come last.
_ENTRY_FIELDS = itemgetter(
    "process_group", "collective_seq_id", "profiling_name", "input_sizes", "input_dtypes",
    "output_sizes", "state", "is_p2p", "time_created_ns",
)  # fmt: skip


def _plain_part(
    seq: tuple[Any, ...],
    names: tuple[Any, ...],
    isz: tuple[Any, ...],
    idt: tuple[Any, ...],
    osz: tuple[Any, ...],
) -> bool:
    """Rising sequence numbers and `_plain_signature` for one group's entries at once.
    Sufficient, not exact: a part that fails here is checked entry by entry instead."""
    if not (
        seq[0] >= 0
        and all(map(lt, seq, islice(seq, 1, None)))
        and set(map(type, names)) == _STRS
        and max(map(len, names)) <= _MAX_NAME
        and set(map(type, isz)) == _LISTS == set(map(type, osz)) == set(map(type, idt))
        and max(map(len, isz)) + max(map(len, osz)) <= _MAX_TENSORS
        and max(map(len, idt)) <= _MAX_TENSORS
        and set(map(type, chain.from_iterable(idt))) <= _STRS
    ):
        return False
    tensors = list(chain(chain.from_iterable(isz), chain.from_iterable(osz)))
    return (
        set(map(type, tensors)) <= _SEQS
        and sum(map(len, tensors)) <= _MAX_DIMS  # all the part's dims: stricter than per entry
        and set(map(type, chain.from_iterable(tensors))) <= _INTS
    )


def _plain_sizes(v: Any) -> bool:
    """Tensor sizes: lists of ints inside a list (depth two), at most _MAX_DIMS dims in all."""
    return v is None or (
        v.__class__ in _SEQS
        and len(v) <= _MAX_TENSORS
        and set(map(type, v)) <= _SEQS
        and sum(map(len, v)) <= _MAX_DIMS
        and set(map(type, chain.from_iterable(v))) <= _INTS
    )


def _plain_signature(name: Any, in_sizes: Any, dtypes: Any, out_sizes: Any) -> bool:
    return (
        (name is None or (name.__class__ is str and len(name) <= _MAX_NAME))
        and (
            dtypes is None
            or (
                dtypes.__class__ in _SEQS
                and len(dtypes) <= _MAX_TENSORS
                and set(map(type, dtypes)) <= _STRS
            )
        )
        and _plain_sizes(in_sizes)
        and _plain_sizes(out_sizes)
    )


def _plain_config(cfg: dict[Any, Any]) -> bool:
    """`pg_config`: per group, string keys to scalars or flat lists of ints."""
    for key, group in cfg.items():
        if not isinstance(key, str | int) or not isinstance(group, dict) or len(group) > 64:
            return False
        if not set(map(type, group)) <= _STRS:
            return False
        for value in group.values():
            if not isinstance(value, _SCALARS) and not (
                value.__class__ in _SEQS and set(map(type, value)) <= _INTS
            ):
                return False
    return True


def _key(value: Any) -> bytes | str:
    """Equal keys for equal plain data, type for type (1, 1.0 and True differ, as in repr).

    marshal's version 0 writes no back-references and does not mark interned strings, so the
    bytes depend on the value alone; it is several times cheaper than repr."""
    try:
        return marshal.dumps(value, 0)
    except ValueError:  # nested too deeply for marshal
        return repr(value)


class Collectives:
    """Every rank's collectives, compared column-wise as the dumps stream in.

    Per process group and sequence number, the ranks are grouped by signature (profiling name,
    input sizes and dtypes, output sizes): a healthy job keeps one group per collective — an
    array of ranks and one of times, not an object per rank and entry — so 16,384 ranks × 200
    entries cost tens of megabytes. A dump can be dropped as soon as it is added."""

    def __init__(self) -> None:
        self.dumps: dict[int, DumpSummary] = {}
        self._columns: dict[str, dict[int, dict[bytes | str, _Group]]] = defaultdict(dict)
        self._blocks: dict[bytes, _Block] = {}
        self._last: _Block | None = None  # the block the previous dump joined
        self._configs: dict[bytes | str, dict[str, Any]] = {}

    @property
    def columns(self) -> dict[str, dict[int, dict[bytes | str, _Group]]]:
        """Per process group and sequence number, the ranks grouped by signature."""
        self._flush()
        return self._columns

    def _flush(self) -> None:
        for block in self._blocks.values():
            seqs, width = block.sig[1], len(block.sig[1])
            raws = zip(*block.sig[2:6], strict=True)
            for i, (name, seq, raw) in enumerate(zip(block.names, seqs, raws, strict=True)):
                column = self._columns[name]
                groups = column.get(seq)
                if groups is None:
                    groups = column[seq] = {}
                key = marshal.dumps(raw, 0)
                group = groups.get(key)
                if group is None:
                    group = groups[key] = _Group(raw)
                group.ranks.extend(block.ranks)
                group.ns.extend(block.ns[i::width])
        self._blocks.clear()
        self._last = None

    def add(self, rank: int, dump: dict[str, Any]) -> None:
        """Fold one rank's dump in: per process group its last enqueued and completed
        collective and last creation time, and each entry's signature and time by sequence
        number (the last entry wins where a number repeats)."""
        if rank in self.dumps:  # a second dump for the same rank replaces the first
            self._flush()
            self._forget(rank)
        cfg = dump.get("pg_config")
        summary = DumpSummary()
        if isinstance(cfg, dict) and cfg and _plain_config(cfg):
            # Each rank's dump repeats the whole group table (the world group lists every rank):
            # keep one copy of each distinct table, or the tables alone grow with ranks squared.
            summary.pg_config = self._configs.setdefault(_key(cfg), cfg)
        self.dumps[rank] = summary
        entries = dump.get("entries", [])
        if not (entries.__class__ is list and self._add_bulk(rank, entries, summary)):
            self._add_each(rank, entries, summary)
        self._fold_status(dump, summary)

    def _add_bulk(self, rank: int, entries: list[Any], summary: DumpSummary) -> bool:
        """The common shape, column by column in C: collectives only, named groups, rising
        sequence numbers, plain signatures and int64 times. False (nothing added) otherwise.

        A dump whose columns equal the previous dump's joins its block after one comparison;
        equality is bounded by the block's own checked size, so it is safe on any dump."""
        if not entries or set(map(type, entries)) != _DICT:
            return False
        try:
            cols = tuple(zip(*map(_ENTRY_FIELDS, entries), strict=True))
        except KeyError:
            return False
        sig, ns = cols[:-1], cols[-1]
        if not (set(map(type, ns)) == _INTS and min(ns) >= _NS_MIN and max(ns) <= _NS_MAX):
            return False
        block = self._last
        if block is None or block.sig != sig:
            block = self._block_for(sig)
            if block is None:
                return False
            self._last = block
        for name, (enqueued, completed, index) in block.parts.items():
            state = summary.pgs[name] = _RankPg(enqueued, completed)
            state.last_ns = max(max(ns if index is None else [ns[i] for i in index]), 0)
        block.ranks.append(rank)
        block.ns.extend(ns)
        return True

    def _block_for(self, sig: tuple[tuple[Any, ...], ...]) -> _Block | None:
        """The block for these columns, checked in full; None when they are not the plain
        common shape."""
        groups, seqs, _, _, _, _, states, p2p = sig
        if not (
            set(map(type, p2p)) <= _P2P_TYPES
            and True not in p2p
            and set(map(type, seqs)) == _INTS
            and set(map(type, states)) <= _STATE_TYPES
            and set(map(type, groups)) == _TUPLES
            and min(map(len, groups)) > 0
            and max(map(len, groups)) <= 4
            and set(map(type, chain.from_iterable(groups))) <= _PG_TYPES
        ):
            return None
        names = tuple(map(itemgetter(0), groups))
        if set(map(type, names)) != _STRS or "" in names or max(map(len, names)) > _MAX_NAME:
            return None
        index: dict[str, list[int] | None]
        if names.count(names[0]) == len(names):
            index = {names[0]: None}  # one group: every entry, without an index list
        else:
            index = defaultdict(list)
            for i, name in enumerate(names):
                cast(list[int], index[name]).append(i)
        parts: dict[str, tuple[int, int, list[int] | None]] = {}
        for name, rows in index.items():

            def pick(col: tuple[Any, ...], rows: list[int] | None = rows) -> tuple[Any, ...]:
                return col if rows is None else tuple(col[i] for i in rows)

            seq = pick(seqs)
            if not _plain_part(seq, *(pick(c) for c in sig[2:6])):
                return None
            done = [s for s, st in zip(seq, pick(states), strict=True) if st == "completed"]
            parts[name] = (seq[-1], max(done, default=-1), rows)
        key = marshal.dumps(sig, 0)  # every field checked plain above
        block = self._blocks.get(key)
        if block is None:
            block = self._blocks[key] = _Block(sig, names, parts)
        return block

    def _add_each(self, rank: int, entries: Any, summary: DumpSummary) -> None:
        """Entry by entry: any shape a dump may have (p2p, repeats, odd types, many groups)."""
        # One pass, no object per entry: this loop runs for every rank × entry (3.3 million
        # times for 16,384 ranks), so the hot path is spelled out inline.
        pgs, columns, dumps = summary.pgs, self._columns, marshal.dumps
        name = None
        state = _RankPg()
        column: dict[int, dict[bytes | str, _Group]] = {}
        for entry in entries:
            get = entry.get
            if get("is_p2p") is True:
                continue
            seq = get("collective_seq_id", _ABSENT)
            if seq is _ABSENT:
                seq = get("seq_id")  # before 2.4
            if seq.__class__ is not int:  # bool is no sequence number
                continue
            pg = get("process_group")
            if not (pg.__class__ is tuple and pg and pg[0] == name and name):
                pg_name = _pg_name(entry)
                if pg_name != name:
                    name = pg_name
                    state = pgs.get(name) or pgs.setdefault(name, _RankPg())
                    column = columns[name]
            if seq > state.enqueued:
                state.enqueued = seq
            else:  # seen before in this dump, or out of order: a repeat replaces the first
                _drop_last(column, seq, rank)
            if seq > state.completed and get("state") == "completed":
                state.completed = seq
            raw = (get("profiling_name"), get("input_sizes"), get("input_dtypes"),
                   get("output_sizes"))  # fmt: skip
            # _plain_signature, inlined for the common shape (a name, lists of int lists).
            isz, osz = raw[1], raw[3]
            if not (
                raw[0].__class__ is str
                and isz.__class__ is list
                and osz.__class__ is list
                and len(both := isz + osz) <= _MAX_TENSORS
                and set(map(type, both)) <= _SEQS
                and sum(map(len, both)) <= _MAX_DIMS
                and set(map(type, chain.from_iterable(both))) <= _INTS
                and raw[2].__class__ is list
                and set(map(type, raw[2])) <= _STRS
                and len(raw[0]) <= _MAX_NAME
                and len(raw[2]) <= _MAX_TENSORS
            ) and not _plain_signature(*raw):
                # Never write out what is not the plain shape: a pickle can share one list
                # 2^30 times in 500 bytes, and marshal or repr would write every copy.
                self._forget(rank)
                raise DumpError(
                    f"entry {seq} is not plain data (its name, sizes or dtypes have another "
                    "shape, or are far larger, than a collective's)"
                )
            key: bytes | str = dumps(raw, 0)  # _key, inlined
            groups = column.get(seq)
            if groups is None:
                groups = column[seq] = {}
            group = groups.get(key)
            if group is None:
                group = groups[key] = _Group(raw)
            ns = get("time_created_ns")
            if ns.__class__ is int and _NS_MIN <= ns <= _NS_MAX:  # _Group.add, inlined
                group.ranks.append(rank)
                group.ns.append(ns)
                if state.last_ns is None or ns > state.last_ns:
                    state.last_ns = ns if ns > 0 else 0
            else:
                group.add(rank, ns if isinstance(ns, int | float) else None)
                if isinstance(ns, int) and (state.last_ns is None or ns > state.last_ns):
                    state.last_ns = max(ns, 0)

    @staticmethod
    def _fold_status(dump: dict[str, Any], summary: DumpSummary) -> None:
        pgs = summary.pgs
        status = dump.get("pg_status")
        if isinstance(status, dict):
            for pg, values in status.items():
                if not isinstance(pg, str | int) or not isinstance(values, dict):
                    continue
                if str(pg) not in pgs:
                    continue
                state = pgs[str(pg)]
                enq = values.get("last_enqueued_collective")
                done = values.get("last_completed_collective")
                if isinstance(enq, int):
                    state.enqueued = max(state.enqueued, enq)
                if isinstance(done, int):
                    state.completed = max(state.completed, done)

    def _forget(self, rank: int) -> None:
        for column in self._columns.values():
            for groups in column.values():
                for key, group in list(groups.items()):
                    if rank in group.ranks:
                        group.drop(rank)
                        if not group.ranks:
                            del groups[key]
        del self.dumps[rank]


def _drop_last(column: dict[int, dict[bytes | str, _Group]], seq: int, rank: int) -> None:
    """Take back what `rank`'s current dump gave at `seq`: it is the last in its group, as the
    dump being added is the latest."""
    groups = column.get(seq, {})
    for key, group in groups.items():
        if group.ranks and group.ranks[-1] == rank:
            group.ranks.pop()
            group.ns.pop()
            if group.other:
                group.other.pop(rank, None)
            if not group.ranks:
                del groups[key]
            return


def _show(value: Any) -> str:
    try:
        return json.dumps(value)  # tuples print as lists, as in the dump's JSON form
    except (TypeError, ValueError):
        return repr(value)


_ABSENT = object()


def _pg_name(entry: dict[str, Any]) -> str:
    """`process_group` is a (name, desc) tuple, a list after a JSON round trip, or a bare name;
    gloo may leave the name empty. `pg_id` is the fallback."""
    pg = entry.get("process_group")
    if isinstance(pg, list | tuple) and pg and isinstance(pg[0], str | int) and pg[0] != "":
        return str(pg[0])
    if isinstance(pg, str | int) and pg != "":
        return str(pg)
    pg_id = entry.get("pg_id", "0")
    return str(pg_id) if isinstance(pg_id, str | int) else "?"


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
        default_ranks = _default_ranks(dumps)
        expected = max(default_ranks | set(dumps)) + 1 if default_ranks else max(dumps) + 1
    result.missing_dumps = sorted(set(range(expected)) - set(dumps))
    for rank in result.missing_dumps:
        result.events.append(
            Event(None, rank, None, "flight recorder", 0, "missing_record",
                  f"no Flight Recorder dump for rank {rank}",
                  {"what": "flight recorder dump", "tier": 2})
        )  # fmt: skip
    per: dict[str, dict[int, _RankPg]] = defaultdict(dict)
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


def _default_ranks(dumps: dict[int, DumpSummary]) -> set[int]:
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
    ranks: dict[int, _RankPg],
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
    column: dict[int, dict[bytes | str, _Group]],
    ranks: dict[int, _RankPg],
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
