"""`perfquery` (infiniband-diags): a port's PortCounters, one `Name:.....value` line each.

    # Port counters: Lid 5 port 1 (CapMask: 0x5A00)
    PortSelect:......................1
    CounterSelect:...................0x0000
    SymbolErrorCounter:..............0
    LinkErrorRecoveryCounter:........0
    LinkDownedCounter:...............0
    ...

A collector that queries every HCA port (`perfquery -C mlx5_0 -P 1`, then the next) leaves one
block per port in the file. `perfquery -x` heads its block "# Port extended counters:"; releases
before rdma-core abbreviated the names (SymbolErrors, LinkDowned, XmtDiscards...), which are
mapped here to the names printed now, so a limit in the fixture names one counter whatever
release printed it. perfquery does not print the HCA's name, so a port is named by its LID.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.domain import IB_ERROR_COUNTERS
from engine.evidence.parsers.base import PerfqueryError, decode_text, number_problem
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "perfquery"

_BLOCK_RE = re.compile(
    r"^#\s*Port\s+(extended\s+)?counters:\s*Lid\s+(\d+)\s+(?:port\s+(\d+)|all\s+ports)", re.I
)
_COUNTER_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*):\.*\s*(\S*)\s*$")
_FAILURE_RE = re.compile(r"\b(?:ibwarn|iberror|failed|couldn't|can't open)\b", re.I)

# Names older perfquery releases printed, as the current release prints them.
ALIASES = {
    "SymbolErrors": "SymbolErrorCounter",
    "LinkRecovers": "LinkErrorRecoveryCounter",
    "LinkDowned": "LinkDownedCounter",
    "RcvErrors": "PortRcvErrors",
    "RcvRemotePhysErrors": "PortRcvRemotePhysicalErrors",
    "RcvSwRelayErrors": "PortRcvSwitchRelayErrors",
    "XmtDiscards": "PortXmitDiscards",
    "XmtConstraintErrors": "PortXmitConstraintErrors",
    "RcvConstraintErrors": "PortRcvConstraintErrors",
    "LinkIntegrityErrors": "LocalLinkIntegrityErrors",
    "ExcBufOverrunErrors": "ExcessiveBufferOverrunErrors",
    "XmtData": "PortXmitData",
    "RcvData": "PortRcvData",
    "XmtPkts": "PortXmitPkts",
    "RcvPkts": "PortRcvPkts",
    "XmtWait": "PortXmitWait",
}
# Selectors and masks, printed in hex: not counts.
_NOT_COUNTS = frozenset({"PortSelect", "CounterSelect", "CounterSelect2", "CapMask"})


@dataclass(frozen=True)
class PortCounters:
    lid: int
    port: int | None  # None: `perfquery -a`, summed over all ports of the node
    counters: dict[str, int]
    extended: bool = False
    line: int | None = None

    @property
    def label(self) -> str:
        return f"LID {self.lid} port {self.port}" if self.port is not None else f"LID {self.lid}"


@dataclass(frozen=True)
class PerfqueryResult:
    KIND: ClassVar[str] = KIND
    ports: tuple[PortCounters, ...]
    errors: tuple[str, ...] = ()
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    head = text[:20_000]
    if re.search(r"^#\s*Port\s+(?:extended\s+)?counters:\s*Lid\b", head, re.M | re.I):
        return 0.95
    names = {m.group(1) for m in re.finditer(r"^([A-Za-z]\w*):\.{2,}", head, re.M)}
    known = names & (set(IB_ERROR_COUNTERS) | set(ALIASES))
    return 0.8 if len(known) >= 3 else 0.0


@dataclass
class _Block:
    lid: int
    port: int | None
    extended: bool
    line: int
    counters: dict[str, int] = field(default_factory=dict)

    def freeze(self) -> PortCounters:
        return PortCounters(self.lid, self.port, dict(self.counters), self.extended, self.line)


def _value(name: str, raw: str, lineno: int) -> int | None:
    if name in _NOT_COUNTS:
        return None
    try:
        value = int(raw, 0) if raw.lower().startswith("0x") else int(raw)
    except ValueError:
        raise PerfqueryError(
            f"{name} must be a whole number of events, found {raw[:30]!r}", line=lineno, kind=KIND
        ) from None
    if value < 0:
        raise PerfqueryError(f"{name} cannot be negative ({value})", line=lineno, kind=KIND)
    return value


def _read(lines: list[str]) -> tuple[list[_Block], list[str]]:
    blocks: list[_Block] = []
    errors: list[str] = []
    for lineno, raw in enumerate(lines, start=1):
        s = raw.strip()
        if not s:
            continue
        if m := _BLOCK_RE.match(s):
            try:
                port = int(m.group(3)) if m.group(3) is not None else None
                lid = int(m.group(2))
            except ValueError as exc:  # int() refuses a \d+ token of 4,300+ digits
                raise PerfqueryError(number_problem(exc), line=lineno, kind=KIND) from None
            blocks.append(_Block(lid, port, bool(m.group(1)), lineno))
            continue
        m_counter = _COUNTER_RE.match(s)
        if m_counter is None or s.startswith("#"):
            if _FAILURE_RE.search(s):
                errors.append(s)
            continue
        if not blocks:
            raise PerfqueryError(
                "counter before any '# Port counters: Lid N port P' line", line=lineno, kind=KIND
            )
        name = ALIASES.get(m_counter.group(1), m_counter.group(1))
        if not m_counter.group(2):
            raise PerfqueryError(f"{name} has no value", line=lineno, kind=KIND)
        value = _value(name, m_counter.group(2), lineno)
        if value is not None:
            blocks[-1].counters[name] = value
    return blocks, errors


def parse(text: str | bytes) -> PerfqueryResult:
    text = decode_text(text, kind=KIND, error=PerfqueryError)
    blocks, errors = _read(text.split("\n"))
    if not blocks:
        first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
        raise PerfqueryError(
            f"no '# Port counters: Lid N port P' block found; first line reads {first[:60]!r}",
            kind=KIND,
        )
    empty = next((b for b in blocks if not b.counters), None)
    if empty is not None and not errors:
        raise PerfqueryError("port counters block without any counter", line=empty.line, kind=KIND)
    return PerfqueryResult(
        ports=tuple(b.freeze() for b in blocks if b.counters), errors=tuple(errors)
    )
