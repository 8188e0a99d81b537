"""Flight Recorder dumps: a restricted unpickler and a JSON reader, both yielding plain data.

The dump is untrusted input from the provider's cluster. Pickle can call any importable function
while loading, so `find_class` admits nothing but `set`/`frozenset` and a bytes-only stand-in for
`_codecs.encode` (protocol 2 spells sets and bytes through those globals); every other global —
`os.system`, `builtins.eval`, torch classes — raises
UnsafePickle before anything is called.
"""

from __future__ import annotations

import io
import json
import pickle
import re
import struct
from typing import Any

from .errors import DumpError, UnsafePickle

_ALLOWED_GLOBALS = {(m, n) for m in ("builtins", "__builtin__") for n in ("set", "frozenset")}
_PLAIN = (dict, list, tuple, set, frozenset, str, bytes, int, float, bool, type(None))


def _latin1_bytes(text: Any, encoding: Any = "latin1") -> bytes:
    """Protocol 2 spells `bytes` as `_codecs.encode(str, 'latin1')`; admit exactly that."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise UnsafePickle("_codecs.encode used for something other than bytes")
    return text.encode("latin1")


class RestrictedUnpickler(pickle.Unpickler):
    """Admits only plain containers and scalars; any other global is refused, never imported."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("_codecs", "encode"):
            return _latin1_bytes
        if (module, name) in _ALLOWED_GLOBALS:
            return set if name == "set" else frozenset
        raise UnsafePickle(f"pickle references {module}.{name}; only plain data is admitted")

    def persistent_load(self, pid: Any) -> Any:
        raise UnsafePickle("pickle uses persistent ids; only plain data is admitted")


def restricted_loads(data: bytes) -> Any:
    """Unpickle `data` admitting only dict, list, tuple, set, str, bytes, int, float, bool, None."""
    try:
        value = RestrictedUnpickler(io.BytesIO(data)).load()
    except UnsafePickle:
        raise
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        IndexError,
        KeyError,
        AttributeError,
        OverflowError,
        RecursionError,
        MemoryError,
        UnicodeDecodeError,
        struct.error,
    ) as exc:
        raise DumpError(f"corrupt pickle: {type(exc).__name__}: {exc}") from exc
    if not isinstance(value, _PLAIN):  # only reachable through the admitted set builders
        raise UnsafePickle(f"pickle produced a {type(value).__name__}")
    return value


def looks_like_dump(name: str, data: bytes) -> bool:
    """A pickle (protocol 2+) or a JSON object with Flight Recorder keys."""
    if data[:1] == b"\x80" and len(data) > 2 and data[1] <= 5:
        return True
    head = data[:4096].lstrip()
    if head[:1] == b"{" and (b'"entries"' in data[:65536] or b'"pg_config"' in head):
        return True
    base = name.rsplit("/", 1)[-1].lower()
    return "nccl_trace" in base and data[:1] in (b"\x80", b"{")


def load_dump(data: bytes, *, name: str) -> dict[str, Any]:
    """Read a Flight Recorder dump (pickle or JSON) into plain data with the keys we rely on."""
    if data[:1] == b"\x80":
        try:
            value = restricted_loads(data)
        except DumpError as exc:
            raise type(exc)(f"{name}: {exc}") from exc
    else:
        try:
            value = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise DumpError(f"{name}: not a pickle or JSON Flight Recorder dump ({exc})") from exc
    if not isinstance(value, dict):
        raise DumpError(f"{name}: the dump is a {type(value).__name__}, expected a mapping")
    # Versions differ (keys renamed, entries as tuples or absent): keep what has the shape we
    # read, and say how much was dropped rather than refusing the dump.
    entries = value.get("entries")
    if not isinstance(entries, list | tuple):
        entries = []
    kept = [e for e in entries if isinstance(e, dict)]
    if len(kept) != len(entries):
        value["unreadable_entries"] = len(entries) - len(kept)
    value["entries"] = kept
    return value


_EXT = r"(?:\.(?:json|pkl|pickle|pt|txt|log|out|err))*"
_RANK_WORD = re.compile(r"rank[_-]?(\d{1,6})" + _EXT + "$", re.I)
_ANY_SUFFIX = re.compile(r"(?:^|\D)(\d{1,6})" + _EXT + "$")


def rank_from_name(name: str, *, require_rank_word: bool = False) -> int | None:
    """`nccl_trace_rank_12` → 12, `rank3.json` → 3, `dump_0` → 0 (dumps only).

    Logs need the word `rank` (`node-17.log` names a node, not rank 17).
    """
    base = name.rsplit("/", 1)[-1]
    m = _RANK_WORD.search(base)
    if m is None and not require_rank_word:
        m = _ANY_SUFFIX.search(base)
    return int(m.group(1)) if m else None
