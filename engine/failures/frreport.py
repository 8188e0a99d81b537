"""The text report of PyTorch's Flight Recorder analyser (`torchfrtrace`, `fr_trace.py`).

Its `error_analysis` logs, for a collective that not every rank of its group entered:

    Not all ranks joining collective, sequence number: 4      (PyTorch 2.6 and later)
    internal record id: 4
    group info: 0:default_pg
    collective: nccl:all_reduce
    missing ranks: {3}
    ...
    expected ranks: {0, 1, 2, 3}

PyTorch 2.5 prints `Not all ranks joining collective 5 at entry 4` and `expected ranks: 4` (a
count). The missing ranks are global ranks; they never called the collective the others wait in.
"""

from __future__ import annotations

import re
from typing import Any

from .model import Event

_HEAD = re.compile(
    r"Not all ranks joining collective(?:, sequence number:)? (\d+)(?: at entry (\d+))?"
)
_FIELD = re.compile(r"^\s*(group info|collective|missing ranks|expected ranks|world size): (.*)$")
_MAX_FIELDS = 16
_MAX_RANKS = 64


def looks_like_report(text: str) -> bool:
    return text.find("Not all ranks joining collective") != -1


def report_events(name: str, text: str) -> tuple[list[Event], list[str]]:
    """One `collective_desync` event per missing rank of the first incomplete collective of
    each process group (a later one only follows from it), and what could not be read."""
    lines = text.split("\n")
    seen: set[str] = set()
    events: list[Event] = []
    problems: list[str] = []
    for i, line in enumerate(lines):
        m = _HEAD.search(line) if "Not all ranks" in line else None
        if m is None:
            continue
        fields, at = _fields(lines, i)
        pg = fields.get("group info", "?")
        missing = _ranks(fields.get("missing ranks", ""))
        if not missing:
            problems.append(
                f"{name}: line {i + 1}: a torchfrtrace block without a readable 'missing ranks:' "
                "line (the report was cut short?); it names no rank"
            )
        if pg in seen or not missing:
            continue
        seen.add(pg)
        events.extend(_missing(name, at.get("missing ranks", i + 1), int(m.group(1)), pg,
                               fields, missing))  # fmt: skip
    return events, problems


def _fields(lines: list[str], at: int) -> tuple[dict[str, str], dict[str, int]]:
    """The block's `key: value` lines, and their line numbers."""
    fields: dict[str, str] = {}
    where: dict[str, int] = {}
    for j in range(at + 1, min(at + 1 + _MAX_FIELDS, len(lines))):
        if _HEAD.search(lines[j]):
            break
        fm = _FIELD.match(lines[j])
        if fm is not None:
            fields.setdefault(fm.group(1), fm.group(2).strip())
            where.setdefault(fm.group(1), j + 1)
    return fields, where


def _ranks(text: str) -> list[int]:
    return sorted({int(x) for x in re.findall(r"\d+", text[:100_000])})


def _missing(
    name: str, line_no: int, seq: int, pg: str, fields: dict[str, str], missing: list[int]
) -> list[Event]:
    """The minority is the odd one out, as in `flightrec`: a few ranks missing never joined;
    a few ranks joined while most are missing, then those few ran ahead (an extra collective)."""
    op = fields.get("collective", "?")
    listed = _ranks(fields.get("expected ranks", ""))
    expected = listed if len(listed) > 1 else []  # PyTorch 2.5 prints only their number
    size = len(expected) or (listed[0] if listed else None)
    joined = sorted(set(expected) - set(missing))
    behind = not joined or len(missing) <= len(joined)
    suspects = missing if behind else joined
    where = f"{name}:{line_no}"
    events = []
    for rank in suspects[:_MAX_RANKS]:
        if behind:
            others = f"{size - len(missing)} rank(s) joined it" if size else "the others joined it"
            cause = f"rank {rank} never joined {op} #{seq} of process group {pg}"
        else:
            others = f"{len(missing)} rank(s) never called it"
            cause = f"rank {rank} entered {op} #{seq} of process group {pg}, an extra collective"
        detail: dict[str, Any] = {
            "seq": seq, "pg": pg, "op": op, "tier": 1, "from": "fr_trace report",
            "behind": behind, "missing_ranks": missing[:_MAX_RANKS], "cause": cause,
            "why": f"PyTorch's Flight Recorder analyser (torchfrtrace) reports it; {others} "
                   f"({where})",
        }  # fmt: skip
        if pg.endswith(":default_pg") and size:
            detail["world_size"] = size  # the default group's size is the world's
        text = f"fr_trace: {cause}; {others}"
        events.append(Event(None, rank, None, name, line_no, "collective_desync", text, detail))
    return events
