"""Xids the driver raises because of an earlier Xid on the same GPU, read as that Xid's consequence.

An Xid 45 says so itself (`caused by previous Xid 149`, `lines._xid`). An Xid 109 does not:
`NVRM: Xid (PCI:0000:2a:00): 109, pid=1202, name=python3, Ch 00000008, errorString CTX SWITCH
TIMEOUT, Info 0x2c02c` (newer drivers: `channel 0x00000008, CTX SWITCH TIMEOUT, Info 0x…`) is the
GPU failing to switch away from a context, and a channel left stuck by a Graphics Engine
Exception (Xid 13: a kernel's bad address, an illegal instruction) is one reason it cannot. NVIDIA's
Xid catalogue gives both an application cause, so a 109 a few seconds after a 13 on the same GPU
(the same PCI bus, on the same node or in the same kernel log) is the 13's consequence: it is
marked secondary, never chosen first, never "hardware next to" another event, and the 13 names
it. A 109 on its own keeps its default reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from .model import Event

# The later Xid → the earlier Xids whose consequence it is, and what the driver calls each.
FOLLOWS = {109: frozenset({13})}
NAMES = {13: "Graphics Engine Exception", 109: "CTX SWITCH TIMEOUT"}
# A context-switch timeout fires within seconds of the fault that stuck the channel.
WINDOW = timedelta(seconds=10)
_UPTIME = re.compile(r"\[\s*(\d+\.\d+)\]")  # raw dmesg: seconds since boot, no wall clock


def xid_name(code: Any) -> str:
    """`Xid 109 (CTX SWITCH TIMEOUT)`, or `Xid 79` where no name is kept."""
    name = NAMES.get(code) if isinstance(code, int) else None
    return f"Xid {code} ({name})" if name else f"Xid {code}"


def chain_xids(events: Iterable[Event]) -> None:
    """Mark each Xid that follows its cause on the same GPU within `WINDOW` as that cause's
    consequence, and name it on the cause (`followed_by`)."""
    events = list(events)
    earlier: dict[int, list[Event]] = {}
    for e in events:
        gpu = e.detail.get("pci") and not e.detail.get("nvswitch")  # an SXid is the fabric's
        if e.kind == "xid" and gpu and isinstance(e.detail.get("xid"), int):
            earlier.setdefault(int(e.detail["xid"]), []).append(e)
    for code, causes in FOLLOWS.items():
        for later in earlier.get(code, ()):
            cause = _latest_cause(later, [c for k in causes for c in earlier.get(k, ())])
            if cause is not None:
                _mark(later, cause)


def _latest_cause(later: Event, candidates: list[Event]) -> Event | None:
    best: tuple[float, Event] | None = None
    for c in candidates:
        if c.detail.get("pci") != later.detail.get("pci") or not _same_host(c, later):
            continue
        gap = _gap_s(c, later)
        in_window = gap is not None and 0 <= gap <= WINDOW.total_seconds()
        if in_window and gap is not None and (best is None or gap < best[0]):
            best = (gap, c)
    return None if best is None else best[1]


def _same_host(a: Event, b: Event) -> bool:
    if a.node is not None or b.node is not None:
        return a.node == b.node
    return a.source == b.source


def _gap_s(cause: Event, later: Event) -> float | None:
    """Seconds from the cause to the later Xid: wall clock, else dmesg's uptime in one log."""
    if cause.time_utc is not None and later.time_utc is not None:
        return (later.time_utc - cause.time_utc).total_seconds()
    if cause.source != later.source:
        return None
    a, b = _UPTIME.search(cause.text), _UPTIME.search(later.text)
    if a is None or b is None:
        return None
    return float(b.group(1)) - float(a.group(1))


def _mark(later: Event, cause: Event) -> None:
    gap = _gap_s(cause, later) or 0.0
    pci = cause.detail["pci"]
    first, then = xid_name(cause.detail.get("xid")), xid_name(later.detail.get("xid"))
    later.detail.update(
        secondary=True, tier=3, after_xid=cause.detail.get("xid"),
        cause=f"{then} {gap:.0f} s after {first} on the same GPU (PCI {pci}): its consequence",
    )  # fmt: skip
    cause.detail.setdefault("followed_by", []).append(
        f"{then} {gap:.0f} s later on the same GPU (PCI {pci}), its consequence"
    )
