"""Routing each file of a bundle as it arrives: dump, rank map, GPU list, log, or refused.

Sources may be a generator (`iter_bundle`, `iter_paths`): a dump is summarised and its bytes
dropped at once, so 16,384 dumps never sit in memory together. Logs are kept as text.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .collectives import Collectives
from .colour import without_colour
from .errorfile import error_file_text
from .errors import DumpError, UnsafePickle
from .model import SourceFile
from .rankmap import RankMap, looks_like_gpu_list, looks_like_rank_map, parse_rank_map
from .unpickle import load_dump, looks_like_dump, rank_from_name

# A file named like a dump that is empty or cut short: the rank died while dumping.
_DUMP_NAME = re.compile(r"nccl_trace|fr_trace|flight|(?:^|/)fr/|trace_rank", re.I)


@dataclass(slots=True)
class Intake:
    texts: list[tuple[str, str]] = field(default_factory=list)  # (name, decoded text)
    collectives: Collectives = field(default_factory=Collectives)
    dump_sources: dict[int, str] = field(default_factory=dict)
    incomplete_dumps: dict[int, str] = field(default_factory=dict)  # rank → why
    gpu_lists: list[SourceFile] = field(default_factory=list)
    explicit: RankMap = field(default_factory=RankMap)
    missing: list[str] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    files: int = 0
    used: int = 0
    bytes: int = 0


def take(sources: Iterable[SourceFile]) -> Intake:
    """Read every source once, in order."""
    out = Intake()
    # Thousands of dumps make millions of small containers that all stay alive; the cyclic GC
    # would rescan them again and again (quadratic). None of them can form cycles worth collecting.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for f in sources:
            _take_one(f, out)
    finally:
        if gc_was_enabled:
            gc.enable()
    return out


def _take_one(f: SourceFile, out: Intake) -> None:
    out.files += 1
    out.bytes += f.size
    out.names.append(f.name)
    if f.refused:
        out.refused.append({"name": f.name, "reason": f.refused})
        out.missing.append(f"{f.name}: refused ({f.refused})")
        return
    why = None
    if not f.data:
        rank = rank_from_name(f.name)
        if rank is not None and _DUMP_NAME.search(f.name):
            _incomplete(out, rank, f.name, "empty file (0 bytes)")
            return
        why = "empty file"
    elif looks_like_dump(f.name, f.data):
        why = _load_dump(f, out)
    elif looks_like_rank_map(f.name, f.data):
        out.explicit.update(parse_rank_map(f.data, name=f.name))
    elif looks_like_gpu_list(f.data):
        out.gpu_lists.append(f)
    elif b"\x00" in f.data[:8192]:
        why = "binary file, not a log or a dump"
    else:
        text = without_colour(f.data.decode("utf-8", errors="replace"))
        out.texts.append((f.name, error_file_text(f.name, text) or text))
    if why is None:
        out.used += 1
    else:
        out.refused.append({"name": f.name, "reason": why})
        if not why.startswith("Flight Recorder"):
            out.missing.append(f"{f.name}: skipped ({why})")


def _incomplete(out: Intake, rank: int, name: str, why: str) -> None:
    """A dump cut short is evidence (the rank was stopped while writing it), never a clean one."""
    out.used += 1
    out.incomplete_dumps[rank] = why
    out.dump_sources.setdefault(rank, name)
    out.missing.append(f"Flight Recorder dump for rank {rank} is incomplete: {why}")


def _load_dump(f: SourceFile, out: Intake) -> str | None:
    """None when loaded (or recorded as incomplete), else why the dump cannot be used."""
    rank = rank_from_name(f.name)
    if rank is None:
        out.missing.append(f"{f.name}: Flight Recorder dump without a rank in its name; skipped")
        return "Flight Recorder dump without a rank in its name"
    try:
        # Keep only what the comparison needs: 16,384 full dumps would not fit in memory.
        out.collectives.add(rank, load_dump(f.data, name=f.name))
        out.dump_sources[rank] = f.name
    except UnsafePickle as exc:
        out.missing.append(f"Flight Recorder dump for rank {rank} refused: {exc}")
        return f"Flight Recorder dump refused: {str(exc).removeprefix(f'{f.name}: ')}"
    except DumpError as exc:  # truncated or garbled: what a rank killed mid-dump leaves
        _incomplete(out, rank, f.name, str(exc).removeprefix(f"{f.name}: "))
    return None
