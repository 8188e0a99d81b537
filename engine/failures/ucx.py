"""UCX's backtrace after a fatal signal, read as part of that signal's event.

UCX's error handler prints `[host:pid:a:tid] Caught signal 11 (Segmentation fault: …)`, then,
from the same thread, the stack:

    ==== backtrace (tid:   5704) ====
     0 0x0000000000043090 killpg()  ???:0
     1 0x000000000008170d ncclGroupEnd()  ???:0
    =================================

(older releases: `==== backtrace ====`, frames as `0  /usr/lib/libucs.so.0(+0x23e0e) [0x7f…]`).
Its frames are symbol names, not messages: one may hold words the line rules read
(`c10::OutOfMemoryError`), so the block is consumed whole and kept on the signal's event,
matched by the thread id the two share. Another process's lines printed between the signal and
the block are read as usual; one inside the block ends it.
"""

from __future__ import annotations

import re
from typing import Any

from .model import Event

# Literals that bring a line to the reader (see `lines.ANCHORS`).
ANCHORS = ("==== backtrace",)

_HEADER = re.compile(r"^\s*=+ backtrace(?: \(tid:\s*(\d+)\))? =+\s*$")
_FRAME = re.compile(r"^\s*\d+\s+(?:0x[0-9a-fA-F]+\s+(\S.*?)|((?:/\S+|\[0x[0-9a-fA-F]+\]).*?))\s*$")
_CLOSE = re.compile(r"^\s*={3,}\s*$")
MAX_FRAMES = 200  # a block longer than this is cut: its end is not looked for further
KEPT_FRAMES = 12  # the innermost frames the event keeps


def header_tid(body: str) -> tuple[bool, int | None]:
    """(whether the line opens a backtrace, the thread id it names)."""
    m = _HEADER.match(body)
    if m is None:
        return False, None
    return True, int(m.group(1)) if m.group(1) else None


def frame(body: str) -> str | None:
    """A frame's text without its address, or None for a line that is no frame."""
    m = _FRAME.match(body)
    if m is None:
        return None
    return (m.group(1) or m.group(2)).strip()[:160]


def closes(body: str) -> bool:
    return _CLOSE.match(body) is not None


def attach(events: list[Event], *, source: str, tid: int | None, frames: list[str],
           line_no: int) -> Event | None:  # fmt: skip
    """Keep the frames on the latest signal event of this file from the same thread (any
    thread's, when the header names none); the event, or None when no signal precedes."""
    for e in reversed(events[-64:]):
        if e.source != source or e.kind != "signal":
            continue
        if tid is not None and e.detail.get("tid") not in (None, tid):
            continue
        detail: dict[str, Any] = e.detail
        detail["backtrace"] = frames[:KEPT_FRAMES]
        detail["backtrace_line"] = line_no
        return e
    return None
