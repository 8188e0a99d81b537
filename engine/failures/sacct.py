"""`sacct` output: each job step's state and exit code, as scheduler events.

Both of sacct's layouts are read: `--parsable2`/`-P` (`JobID|JobName|State|ExitCode|…`, with or
without the trailing `|` of `--parsable`, and without a header under `-n` when the columns are
sacct's default ones) and the default fixed-width table, whose dashed line
under the header gives the column widths and whose long values end in `+` (`OUT_OF_ME+`). The
columns read are `JobID`, `State`, `ExitCode` (`exit:signal`), and when present `NodeList`,
`End`, `JobName` and `DerivedExitCode`. A step that ran to completion, or is still queued or
running, is no evidence and is skipped.
"""

from __future__ import annotations

import re
from datetime import tzinfo
from typing import Any

from .decoded import INFRASTRUCTURE, JOB
from .hostlist import expand_nodelist
from .model import Event
from .normalise import short_node
from .timestamps import parse_iso

_STATES = (
    "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY",
    "PENDING", "PREEMPTED", "RUNNING", "REQUEUED", "RESIZING", "REVOKED", "SUSPENDED", "TIMEOUT",
)  # fmt: skip
_QUIET = frozenset({"COMPLETED", "PENDING", "RUNNING", "RESIZING", "SUSPENDED", "REQUEUED"})
_HEADER = re.compile(r"^\s*JobID\b", re.MULTILINE)
_DASHES = re.compile(r"^[\s-]+$")


# `sacct -P -n` prints no header: its rows are in sacct's default columns, which end in
# `State|ExitCode` (a step id first, `7002`, `7002.batch`, `7003_4`, `7010+1`).
_DEFAULT_KEYS = ("JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode")
_BARE_ROW = re.compile(r"^\d+(?:[_+.][\w.+\[\]-]*)?\|", re.MULTILINE)


def looks_like_sacct(text: str) -> bool:
    m = _HEADER.search(text[:65_536])
    if m is not None:
        return "State" in text[m.start() : m.start() + 2_000]
    return bool(_bare_rows(text[:65_536]))


def _bare_rows(text: str) -> list[tuple[int, dict[str, str]]]:
    """Rows of headerless `sacct -P` in the default columns; none unless every line is one."""
    rows: list[tuple[int, dict[str, str]]] = []
    for i, line in enumerate(text.splitlines(), 1):
        cells = [c.strip() for c in line.split("|")]
        if cells[-1:] == [""] and len(cells) == len(_DEFAULT_KEYS) + 1:
            cells.pop()  # --parsable's trailing `|`
        if not line.strip():
            continue
        if (len(cells) != len(_DEFAULT_KEYS) or not _BARE_ROW.match(line)
                or _state(cells[5]) is None):  # fmt: skip
            return []
        rows.append((i, dict(zip(_DEFAULT_KEYS, cells, strict=True))))
    return rows


def sacct_events(name: str, text: str, *, tz: tzinfo) -> list[Event]:
    """One event per job step that failed, was cancelled, ran out of memory or lost a node."""
    rows = table_rows(text, headerless=True)
    events: list[Event] = []
    for line_no, row in rows:
        event = _event(name, line_no, row, tz)
        if event is not None:
            events.append(event)
    return events


def table_rows(text: str, *, headerless: bool = False) -> list[tuple[int, dict[str, str]]]:
    """Each row under sacct's header as (line number, column → value), in either layout;
    `headerless`: rows without a header in sacct's default columns too."""
    lines = text.splitlines()
    head = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if head is None:
        return _bare_rows(text) if headerless else []
    if "|" in lines[head]:
        keys = [k.strip() for k in lines[head].split("|")]
        return [
            (i + 1, dict(zip(keys, (c.strip() for c in line.split("|")), strict=False)))
            for i, line in enumerate(lines[head + 1 :], head + 1)
            if "|" in line
        ]
    if head + 1 >= len(lines) or not _DASHES.match(lines[head + 1]):
        return []
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[head + 1])]
    keys = [lines[head][a:b].strip() for a, b in spans]
    return [
        (i + 1, {k: line[a:b].strip() for k, (a, b) in zip(keys, spans, strict=True)})
        for i, line in enumerate(lines[head + 2 :], head + 2)
        if line.strip()
    ]


def _state(value: str) -> str | None:
    """`CANCELLED by 1000` → CANCELLED; a truncated `OUT_OF_ME+` → OUT_OF_MEMORY."""
    word = value.split(" ", 1)[0].rstrip("+")
    if not word:
        return None
    return next((s for s in _STATES if s.startswith(word)), None)


def _event(name: str, line_no: int, row: dict[str, str], tz: tzinfo) -> Event | None:
    state = _state(row.get("State", ""))
    step = row.get("JobID", "")
    if state is None or state in _QUIET or not step:
        return None
    code, _, sig = row.get("ExitCode", "").partition(":")
    nodes = expand_nodelist(row.get("NodeList", "").rstrip("+")) if row.get("NodeList") else []
    detail: dict[str, Any] = {
        "step": step, "state": state, "cause": state.lower().replace("_", " "),
        "from": "sacct", "secondary": True, "tier": 3,
    }  # fmt: skip
    if code.isdigit():
        detail["exitcode"] = int(code)
    if sig.isdigit() and int(sig):
        detail["signal"] = int(sig)
    if len(nodes) > 1:
        detail["nodes"] = [short_node(n) for n in nodes[:64]]
    if state == "OUT_OF_MEMORY":
        why = f"sacct: step {step} ran out of its memory limit"
        detail.update(oom=True, category=JOB, category_reason=why)
    elif state == "NODE_FAIL":
        detail.update(node_failure=len(nodes) == 1, category=INFRASTRUCTURE,
                      category_reason=f"sacct: step {step} lost a node")  # fmt: skip
    elif state in ("TIMEOUT", "DEADLINE"):
        detail.update(cause="time limit", time_limit=True, secondary=False, tier=2)
    elif state == "PREEMPTED":
        detail.update(cause="preemption", secondary=False, tier=2, preempted=True)
    text = f"sacct: step {step} {row.get('State', '')} exit code {row.get('ExitCode', '?')}"
    node = short_node(nodes[0]) if len(nodes) == 1 else None
    return Event(parse_iso(row.get("End", ""), tz=tz), None, node, name, line_no, "scheduler",
                 text, detail)  # fmt: skip
