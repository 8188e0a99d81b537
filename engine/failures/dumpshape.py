"""The shape a Flight Recorder dump's fields must have before the analysis compares, keys or
prints them: plain types, bounded sizes. The checks run on every entry of every rank's dump."""

from __future__ import annotations

import marshal
from itertools import chain, islice
from operator import itemgetter, lt
from typing import Any

# A dump is untrusted: the fields that are compared, keyed and printed must be plain and bounded
# before anything writes them out (marshal, json, repr all expand shared references).
SEQS = frozenset({list, tuple})
INTS = frozenset({int})
STRS = frozenset({str})
SCALARS = (str, int, float, bool, type(None))
MAX_TENSORS, MAX_DIMS, MAX_NAME = 1024, 8192, 256
DICT = frozenset({dict})
TUPLES = frozenset({tuple})
LISTS = frozenset({list})
P2P_TYPES = frozenset({bool, type(None)})
STATE_TYPES = frozenset({str, type(None)})
PG_TYPES = frozenset({str, int})
# What the bulk path reads from every entry, in this order; the times come last.
ENTRY_FIELDS = itemgetter(
    "process_group", "collective_seq_id", "profiling_name", "input_sizes", "input_dtypes",
    "output_sizes", "state", "is_p2p", "time_created_ns",
)  # fmt: skip


def plain_part(
    seq: tuple[Any, ...],
    names: tuple[Any, ...],
    isz: tuple[Any, ...],
    idt: tuple[Any, ...],
    osz: tuple[Any, ...],
) -> bool:
    """Rising sequence numbers and `plain_signature` for one group's entries at once.
    Sufficient, not exact: a part that fails here is checked entry by entry instead."""
    if not (
        seq[0] >= 0
        and all(map(lt, seq, islice(seq, 1, None)))
        and set(map(type, names)) == STRS
        and max(map(len, names)) <= MAX_NAME
        and set(map(type, isz)) == LISTS == set(map(type, osz)) == set(map(type, idt))
        and max(map(len, isz)) + max(map(len, osz)) <= MAX_TENSORS
        and max(map(len, idt)) <= MAX_TENSORS
        and set(map(type, chain.from_iterable(idt))) <= STRS
    ):
        return False
    tensors = list(chain(chain.from_iterable(isz), chain.from_iterable(osz)))
    return (
        set(map(type, tensors)) <= SEQS
        and sum(map(len, tensors)) <= MAX_DIMS  # all the part's dims: stricter than per entry
        and set(map(type, chain.from_iterable(tensors))) <= INTS
    )


def plain_sizes(v: Any) -> bool:
    """Tensor sizes: lists of ints inside a list (depth two), at most MAX_DIMS dims in all."""
    return v is None or (
        v.__class__ in SEQS
        and len(v) <= MAX_TENSORS
        and set(map(type, v)) <= SEQS
        and sum(map(len, v)) <= MAX_DIMS
        and set(map(type, chain.from_iterable(v))) <= INTS
    )


def plain_signature(name: Any, in_sizes: Any, dtypes: Any, out_sizes: Any) -> bool:
    return (
        (name is None or (name.__class__ is str and len(name) <= MAX_NAME))
        and (
            dtypes is None
            or (
                dtypes.__class__ in SEQS
                and len(dtypes) <= MAX_TENSORS
                and set(map(type, dtypes)) <= STRS
            )
        )
        and plain_sizes(in_sizes)
        and plain_sizes(out_sizes)
    )


def plain_config(cfg: dict[Any, Any]) -> bool:
    """`pg_config`: per group, string keys to scalars or flat lists of ints."""
    for key, group in cfg.items():
        if not isinstance(key, str | int) or not isinstance(group, dict) or len(group) > 64:
            return False
        if not set(map(type, group)) <= STRS:
            return False
        for value in group.values():
            if not isinstance(value, SCALARS) and not (
                value.__class__ in SEQS and set(map(type, value)) <= INTS
            ):
                return False
    return True


def value_key(value: Any) -> bytes | str:
    """Equal keys for equal plain data, type for type (1, 1.0 and True differ, as in repr).

    marshal's version 0 writes no back-references and does not mark interned strings, so the
    bytes depend on the value alone; it is several times cheaper than repr."""
    try:
        return marshal.dumps(value, 0)
    except ValueError:  # nested too deeply for marshal
        return repr(value)
