"""`ibqueryerrors` (infiniband-diags): the fabric's port error counters above a threshold.

    Errors for "gpu-a02 mlx5_3"
       GUID 0xb8cef60300a1c2d3 port 1: [SymbolErrorCounter == 57] [LinkDownedCounter == 2]
    Errors for 0x0c42a10300f0e1d2 "Quantum Mellanox Technologies"
       GUID 0x0c42a10300f0e1d2 port 17: [PortXmitDiscards == 12 (12.000 )]

    ## Summary: 18 nodes checked, 2 bad nodes found
    ##          208 ports checked, 2 ports have errors beyond threshold
    ## Thresholds: [SymbolErrorCounter = 10]
    ## Suppressed:

Only ports with a counter above the tool's threshold are listed, and only those counters: the
threshold is 0 unless a threshold file raised it (the "## Thresholds:" line names each one
raised; "## (null)" when there is no file). So a counter not listed is at most its threshold,
which the checks use: it is known to be 0 where the threshold is 0, and unknown otherwise or
where the counter is suppressed. A switch's header carries its GUID, a host channel adapter's
only its node description (by default "<host> <HCA>"). Releases before rdma-core used the
abbreviated names perfquery used then; they are mapped to today's names as perfquery's are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.evidence.parsers.base import IbqueryerrorsError, decode_text, number_problem
from engine.evidence.parsers.header import EvidenceOrigin
from engine.evidence.parsers.perfquery import ALIASES

KIND = "ibqueryerrors"

_NODE_RE = re.compile(r'^Errors for\s+(?:(0x[0-9a-fA-F]+)\s+)?"(.*)"\s*$')
_PORT_RE = re.compile(r"^GUID\s+(0x[0-9a-fA-F]+)\s+port\s+(\d+|ALL)\s*:(.*)$")
_ENTRY_RE = re.compile(r"\[\s*([A-Za-z]\w*)\s*==\s*(\S+?)(?:\s*\([^)]*\))?\s*\]")
_SUMMARY_RE = re.compile(r"^##\s*Summary:\s*(\d+)\s+nodes? checked,\s*(\d+)\s+bad nodes? found")
_PORTS_RE = re.compile(r"^##\s*(\d+)\s+ports? checked,\s*(\d+)\s+ports? have errors")
_PMA_RE = re.compile(r"^##\s*(\d+)\s+PMA query failures?")
_THRESHOLD_RE = re.compile(r"\[\s*([A-Za-z]\w*)\s*=\s*(\d+)\s*\]")
_FAILURE_RE = re.compile(r"\b(?:ibwarn|iberror|failed|couldn't|can't open)\b", re.I)
# ibcheckerrors, the script ibqueryerrors replaced, ends with the same "## Summary" block but
# shows only counts above its own thresholds (10 to 100 events).
_IBCHECKERRORS_RE = re.compile(r"^(?:#warn: counter \w+ = \d+|Error check on lid \d+\b)")


@dataclass(frozen=True)
class ErrorPort:
    node: str  # the node description ibqueryerrors prints, e.g. "gpu-a02 mlx5_3"
    guid: str
    port: int | None  # None: a switch's "port ALL" (every port summed)
    counters: dict[str, int]
    switch: bool = False
    line: int | None = None

    @property
    def label(self) -> str:
        where = f"port {self.port}" if self.port is not None else "all ports"
        return f'"{self.node}" {where}' if self.node else f"GUID {self.guid} {where}"

    @property
    def host(self) -> str | None:
        """The host of a channel adapter's default description ("gpu-a02 mlx5_3")."""
        if self.switch or not self.node.strip():
            return None
        return self.node.split()[0]


@dataclass(frozen=True)
class IbqueryerrorsResult:
    KIND: ClassVar[str] = KIND
    ports: tuple[ErrorPort, ...]
    # Counters the tool's threshold file raised above 0 (a counter not listed is at most this).
    thresholds: dict[str, int] = field(default_factory=dict)
    suppressed: tuple[str, ...] = ()
    nodes_checked: int | None = None
    ports_checked: int | None = None
    pma_failures: int = 0
    # The "## Suppressed:" line that ends every run was reached (the run was not cut short).
    complete: bool = False
    errors: tuple[str, ...] = ()
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})

    def bound(self, counter: str) -> int | None:
        """What a counter not listed for a port is at most; None when nothing says."""
        if not self.complete or counter in self.suppressed:
            return None
        return self.thresholds.get(counter, 0)


def detect(text: str) -> float:
    head = text[:20_000]
    if re.search(r"^##\s*Summary:\s*\d+\s+nodes? checked", head, re.M):
        return 0.95
    if re.search(r'^Errors for\s+(?:0x[0-9a-fA-F]+\s+)?"', head, re.M) and re.search(
        r"^\s+GUID\s+0x[0-9a-fA-F]+\s+port\s+(?:\d+|ALL):", head, re.M
    ):
        return 0.9
    return 0.0


def _int(raw: str, what: str, lineno: int) -> int:
    try:
        value = int(raw)
    except ValueError as exc:
        if raw.isdigit():
            raise IbqueryerrorsError(number_problem(exc), line=lineno, kind=KIND) from None
        raise IbqueryerrorsError(
            f"{what} must be a whole number of events, found {raw[:30]!r}", line=lineno, kind=KIND
        ) from None
    return value


def _entries(rest: str, lineno: int) -> dict[str, int]:
    found = list(_ENTRY_RE.finditer(rest))
    leftover = _ENTRY_RE.sub("", rest).strip()
    if not found or leftover:
        raise IbqueryerrorsError(
            "a port line must list '[Counter == value]' entries, found "
            f"{(leftover or rest.strip())[:60]!r}",
            line=lineno,
            kind=KIND,
        )
    out: dict[str, int] = {}
    for m in found:
        name = ALIASES.get(m.group(1), m.group(1))
        out[name] = _int(m.group(2), name, lineno)
    return out


@dataclass
class _State:
    node: str | None = None
    switch: bool = False
    ports: list[ErrorPort] = field(default_factory=list)
    thresholds: dict[str, int] = field(default_factory=dict)
    suppressed: tuple[str, ...] = ()
    nodes_checked: int | None = None
    ports_checked: int | None = None
    pma_failures: int = 0
    complete: bool = False
    errors: list[str] = field(default_factory=list)


def _summary_line(s: str, state: _State, lineno: int) -> None:
    if m := _SUMMARY_RE.match(s):
        state.nodes_checked = _int(m.group(1), "nodes checked", lineno)
    elif m := _PORTS_RE.match(s):
        state.ports_checked = _int(m.group(1), "ports checked", lineno)
    elif m := _PMA_RE.match(s):
        state.pma_failures = _int(m.group(1), "PMA query failures", lineno)
        state.errors.append(s.lstrip("# "))
    elif s.startswith("## Thresholds:"):
        for name, raw in _THRESHOLD_RE.findall(s):
            state.thresholds[ALIASES.get(name, name)] = _int(raw, name, lineno)
    elif s.startswith("## Suppressed:"):
        names = s.removeprefix("## Suppressed:").split()
        state.suppressed, state.complete = tuple(ALIASES.get(n, n) for n in names), True


def _line(s: str, state: _State, lineno: int) -> None:
    if m := _NODE_RE.match(s):
        state.node, state.switch = m.group(2), m.group(1) is not None
        return
    if m := _PORT_RE.match(s):
        if state.node is None:
            raise IbqueryerrorsError(
                "port line before any 'Errors for \"<node>\"' line", line=lineno, kind=KIND
            )
        port = None if m.group(2) == "ALL" else _int(m.group(2), "the port number", lineno)
        counters = _entries(m.group(3), lineno)
        state.ports.append(ErrorPort(state.node, m.group(1).lower(), port, counters,
                                     state.switch, lineno))  # fmt: skip
        return
    if s.startswith("##"):
        _summary_line(s, state, lineno)
    elif _IBCHECKERRORS_RE.match(s):
        raise IbqueryerrorsError(
            f"this is ibcheckerrors output ({s[:40]!r}), not ibqueryerrors: it shows only counts "
            "above its own thresholds (10 to 100 events), so no counter can be read as 0; "
            "upload ibqueryerrors (or perfquery on each port) instead",
            line=lineno,
            kind=KIND,
        )
    elif not s.startswith("Link info:") and _FAILURE_RE.search(s):
        state.errors.append(s)


def parse(text: str | bytes) -> IbqueryerrorsResult:
    text = decode_text(text, kind=KIND, error=IbqueryerrorsError)
    state = _State()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if s:
            _line(s, state, lineno)
    if not state.ports and not state.complete and state.nodes_checked is None:
        first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
        raise IbqueryerrorsError(
            "no ibqueryerrors port line or '## Summary' block found; first line reads "
            f"{first[:60]!r}",
            kind=KIND,
        )
    return IbqueryerrorsResult(
        ports=tuple(state.ports),
        thresholds=state.thresholds,
        suppressed=state.suppressed,
        nodes_checked=state.nodes_checked,
        ports_checked=state.ports_checked,
        pma_failures=state.pma_failures,
        complete=state.complete,
        errors=tuple(state.errors),
    )
