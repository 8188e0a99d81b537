"""Every rank's Flight Recorder collectives, folded in column-wise as the dumps stream in.

Per process group and sequence number, the ranks that issued the same collective are one
`SignatureGroup`; ranks whose dumps are identical but for the times share a block until read.
A dump can be dropped as soon as it is added, so 16,384 dumps never sit in memory together.
"""

from __future__ import annotations

import marshal
from array import array
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from .dumpshape import (
    DICT,
    ENTRY_FIELDS,
    INTS,
    MAX_DIMS,
    MAX_NAME,
    MAX_TENSORS,
    P2P_TYPES,
    PG_TYPES,
    SEQS,
    STATE_TYPES,
    STRS,
    TUPLES,
    plain_config,
    plain_part,
    plain_signature,
    value_key,
)
from .errors import DumpError


@dataclass(slots=True)
class RankPg:
    enqueued: int = -1
    completed: int = -1
    last_ns: int | None = None


@dataclass(slots=True)
class DumpSummary:
    """What the cross-rank analysis needs from one dump besides its collectives."""

    pgs: dict[str, RankPg] = field(default_factory=dict)
    pg_config: dict[str, Any] = field(default_factory=dict)


_NS_MIN, _NS_MAX = -(2**63) + 1, 2**63 - 1
_NS_OTHER = -(2**63)  # the creation time is not an int64; the value itself sits in `other`


class SignatureGroup:
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
        self.sig = sig  # the columns of ENTRY_FIELDS but the times
        self.names = names  # each entry's process group
        self.parts = parts  # group → (last enqueued, last completed, its entries or None: all)
        self.ranks = array("q")
        self.ns = array("q")  # row-major: one time per entry, one row per rank in `ranks`


class Collectives:
    """Every rank's collectives, compared column-wise as the dumps stream in.

    Per process group and sequence number, the ranks are grouped by signature (profiling name,
    input sizes and dtypes, output sizes): a healthy job keeps one group per collective — an
    array of ranks and one of times, not an object per rank and entry — so 16,384 ranks × 200
    entries cost tens of megabytes. A dump can be dropped as soon as it is added."""

    def __init__(self) -> None:
        self.dumps: dict[int, DumpSummary] = {}
        self._columns: dict[str, dict[int, dict[bytes | str, SignatureGroup]]] = defaultdict(dict)
        self._blocks: dict[bytes, _Block] = {}
        self._last: _Block | None = None  # the block the previous dump joined
        self._configs: dict[bytes | str, dict[str, Any]] = {}

    @property
    def columns(self) -> dict[str, dict[int, dict[bytes | str, SignatureGroup]]]:
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
                    group = groups[key] = SignatureGroup(raw)
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
        if isinstance(cfg, dict) and cfg and plain_config(cfg):
            # Each rank's dump repeats the whole group table (the world group lists every rank):
            # keep one copy of each distinct table, or the tables alone grow with ranks squared.
            summary.pg_config = self._configs.setdefault(value_key(cfg), cfg)
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
        if not entries or set(map(type, entries)) != DICT:
            return False
        try:
            cols = tuple(zip(*map(ENTRY_FIELDS, entries), strict=True))
        except KeyError:
            return False
        sig, ns = cols[:-1], cols[-1]
        if not (set(map(type, ns)) == INTS and min(ns) >= _NS_MIN and max(ns) <= _NS_MAX):
            return False
        block = self._last
        if block is None or block.sig != sig:
            block = self._block_for(sig)
            if block is None:
                return False
            self._last = block
        for name, (enqueued, completed, index) in block.parts.items():
            state = summary.pgs[name] = RankPg(enqueued, completed)
            state.last_ns = max(max(ns if index is None else [ns[i] for i in index]), 0)
        block.ranks.append(rank)
        block.ns.extend(ns)
        return True

    def _block_for(self, sig: tuple[tuple[Any, ...], ...]) -> _Block | None:
        """The block for these columns, checked in full; None when they are not the plain
        common shape."""
        groups, seqs, _, _, _, _, states, p2p = sig
        if not (
            set(map(type, p2p)) <= P2P_TYPES
            and True not in p2p
            and set(map(type, seqs)) == INTS
            and set(map(type, states)) <= STATE_TYPES
            and set(map(type, groups)) == TUPLES
            and min(map(len, groups)) > 0
            and max(map(len, groups)) <= 4
            and set(map(type, chain.from_iterable(groups))) <= PG_TYPES
        ):
            return None
        names = tuple(map(itemgetter(0), groups))
        if set(map(type, names)) != STRS or "" in names or max(map(len, names)) > MAX_NAME:
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
            if not plain_part(seq, *(pick(c) for c in sig[2:6])):
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
        state = RankPg()
        column: dict[int, dict[bytes | str, SignatureGroup]] = {}
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
            same = pg.__class__ is tuple and pg and pg[0] == name and name
            if not same and (pg_name := _pg_name(entry)) != name:
                name, column = pg_name, columns[pg_name]
                state = pgs.get(name) or pgs.setdefault(name, RankPg())
            if seq > state.enqueued:
                state.enqueued = seq
            else:  # seen before in this dump, or out of order: a repeat replaces the first
                _drop_last(column, seq, rank)
            if seq > state.completed and get("state") == "completed":
                state.completed = seq
            raw = (get("profiling_name"), get("input_sizes"), get("input_dtypes"),
                   get("output_sizes"))  # fmt: skip
            # plain_signature, inlined for the common shape (a name, lists of int lists).
            isz, osz = raw[1], raw[3]
            if not (
                raw[0].__class__ is str
                and isz.__class__ is list
                and osz.__class__ is list
                and len(both := isz + osz) <= MAX_TENSORS
                and set(map(type, both)) <= SEQS
                and sum(map(len, both)) <= MAX_DIMS
                and set(map(type, chain.from_iterable(both))) <= INTS
                and raw[2].__class__ is list
                and set(map(type, raw[2])) <= STRS
                and len(raw[0]) <= MAX_NAME
                and len(raw[2]) <= MAX_TENSORS
            ) and not plain_signature(*raw):
                raise self._not_plain(rank, seq)
            key: bytes | str = dumps(raw, 0)  # value_key, inlined
            groups = column.get(seq) or column.setdefault(seq, {})
            group = groups.get(key) or groups.setdefault(key, SignatureGroup(raw))
            ns = get("time_created_ns")
            if ns.__class__ is int and _NS_MIN <= ns <= _NS_MAX:  # SignatureGroup.add, inlined
                group.ranks.append(rank)
                group.ns.append(ns)
                if state.last_ns is None or ns > state.last_ns:
                    state.last_ns = ns if ns > 0 else 0
            else:
                _add_odd_time(group, state, rank, ns)

    def _not_plain(self, rank: int, seq: int) -> DumpError:
        """Never write out what is not the plain shape: a pickle can share one list 2^30 times
        in 500 bytes, and marshal or repr would write every copy. The rank's dump is dropped."""
        self._forget(rank)
        return DumpError(
            f"entry {seq} is not plain data (its name, sizes or dtypes have another "
            "shape, or are far larger, than a collective's)"
        )

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


def _add_odd_time(group: SignatureGroup, state: RankPg, rank: int, ns: Any) -> None:
    """A creation time that is not an int64 (absent, a float, out of range)."""
    group.add(rank, ns if isinstance(ns, int | float) else None)
    if isinstance(ns, int) and (state.last_ns is None or ns > state.last_ns):
        state.last_ns = max(ns, 0)


def _drop_last(column: dict[int, dict[bytes | str, SignatureGroup]], seq: int, rank: int) -> None:
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
