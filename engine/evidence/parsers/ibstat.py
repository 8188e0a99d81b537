"""`ibstat` (CA blocks with indented Port sections) and `ibstatus` (one block per port).

Indentation is tabs or spaces, so structure comes from the `CA '...'` / `Port N:` lines, not
from column positions. A down port still prints `Rate: 40`; checks must not trust it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.evidence.parsers.base import IbstatError, decode_text, parse_number
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "ibstat"

# `ibstat <ca> <port>` heads its one port with "CA: 'name'" and prints it unindented.
_CA_RE = re.compile(r"^CA:?\s+'([^']+)'\s*$")
_PORT_RE = re.compile(r"^Port\s+(\d+)\s*:\s*$")
_KV_RE = re.compile(r"^([A-Za-z][A-Za-z _]*?)\s*:\s*(.*?)\s*$")
_IBSTATUS_RE = re.compile(r"^Infiniband device\s+'([^']+)'\s+port\s+(\d+)\s+status:\s*$")
_STATE_NAMES = {
    "active": "Active",
    "down": "Down",
    "init": "Initializing",
    "initializing": "Initializing",
    "armed": "Armed",
}
# libibumad's TRACE/DEBUG lines (`ibstat -d`): IBWARN from its public umad_* calls and the
# helpers below them only ever trace; its real warnings come from get_port/get_abi_version.
_UMAD_TRACE_RE = re.compile(
    r"^ibwarn:\s*\[\d+\]\s*(?:umad_\w+|resolve_ca_port|resolve_ca_name|dev_to_umad_id):"
)


@dataclass(frozen=True)
class IbPort:
    ca: str
    port: int
    state: str | None
    physical_state: str | None
    rate: int | float | None  # Gb/s as printed; meaningless unless state is Active
    link_layer: str | None
    base_lid: str | None = None
    port_guid: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class IbCa:
    name: str
    type: str | None
    firmware: str | None
    ports: int | None = None
    line: int | None = None


@dataclass(frozen=True)
class IbstatResult:
    KIND: ClassVar[str] = KIND
    ports: tuple[IbPort, ...]
    cas: tuple[IbCa, ...]
    errors: tuple[str, ...] = ()
    source_format: str = "ibstat"  # or "ibstatus"
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    head = text[:50_000]
    if re.search(r"^CA:? '[^']+'\s*$", head, re.M) and re.search(r"^\s*Port \d+:", head, re.M):
        return 0.95
    if re.search(r"^Infiniband device '[^']+' port \d+ status:", head, re.M):
        return 0.95
    if re.search(r"^CA:? '[^']+'\s*$", head, re.M):
        return 0.6
    return 0.0


def _rate(raw: str | None, line: int) -> int | float | None:
    """Gb/s from 'Rate: 400' (ibstat) or 'rate: 400 Gb/sec (4X NDR)' (ibstatus)."""
    if raw is None:
        return None
    token = raw.split()[0] if raw.split() else ""
    value = parse_number(token)
    if value is None or value < 0:
        # A rate nobody can read must not reach the checks as "at None Gb/s".
        raise IbstatError(
            f"expected the port rate in Gb/s as a number, found {raw[:40]!r}", line=line, kind=KIND
        )
    return value


def _port_number(raw: str, line: int) -> int:
    if len(raw) > 6:
        raise IbstatError(f"port number {raw[:20]}... is too long", line=line, kind=KIND)
    return int(raw)


def _state(raw: str) -> str:
    # ibstatus prints "4: ACTIVE" / "5: LinkUp"; ibstat prints "Active" / "LinkUp".
    word = raw.split(":", 1)[1].strip() if re.match(r"^\d+:", raw) else raw.strip()
    return _STATE_NAMES.get(word.lower(), word)


@dataclass
class _Blocks:
    """`ibstat` output as it is read: finished CA and port blocks, and the ones still open."""

    cas: list[IbCa] = field(default_factory=list)
    ports: list[IbPort] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    ca: dict[str, str] | None = None
    ca_line: int = 0
    port: dict[str, str] | None = None
    port_line: int = 0
    port_key_lines: dict[str, int] = field(default_factory=dict)
    port_no: int = 0

    def flush_port(self) -> None:
        if self.port is not None and self.ca is not None:
            port = _make_port(
                self.ca["name"], self.port_no, self.port, self.port_line, self.port_key_lines
            )
            self.ports.append(port)
        self.port = None

    def flush_ca(self) -> None:
        self.flush_port()
        if self.ca is not None:
            self.cas.append(_make_ca(self.ca, self.ca_line))
        self.ca = None

    def read(self, s: str, lineno: int) -> None:
        """One stripped, non-empty line."""
        if s.startswith("ibpanic:") or s.startswith("ibwarn:"):
            if not _UMAD_TRACE_RE.match(s):
                self.errors.append(s)
            return
        m_ca = _CA_RE.match(s)
        if m_ca:
            self.flush_ca()
            self.ca, self.ca_line = {"name": m_ca.group(1)}, lineno
            return
        if self.ca is None:
            raise IbstatError(
                f"expected a CA 'name' line, found {s[:40]!r}", line=lineno, kind=KIND
            )
        m_port = _PORT_RE.match(s)
        if m_port:
            self.flush_port()
            self.port, self.port_line = {}, lineno
            self.port_no = _port_number(m_port.group(1), lineno)
            self.port_key_lines = {}
            return
        m_kv = _KV_RE.match(s)
        if m_kv is None:
            raise IbstatError(f"expected 'Key: value', found {s[:40]!r}", line=lineno, kind=KIND)
        if self.port is not None:
            self.port[m_kv.group(1)] = m_kv.group(2)
            self.port_key_lines[m_kv.group(1)] = lineno
        else:
            self.ca[m_kv.group(1)] = m_kv.group(2)


def parse(text: str | bytes) -> IbstatResult:
    text = decode_text(text, kind=KIND, error=IbstatError)
    if re.search(r"^Infiniband device '", text, re.M):
        return _parse_ibstatus(text)
    blocks = _Blocks()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if s:
            blocks.read(s, lineno)
    blocks.flush_ca()
    if not blocks.cas:
        raise IbstatError("no CA blocks found", kind=KIND)
    return IbstatResult(
        ports=tuple(blocks.ports), cas=tuple(blocks.cas), errors=tuple(blocks.errors)
    )


def _make_ca(fields: dict[str, str], line: int) -> IbCa:
    ports = fields.get("Number of ports", "")
    return IbCa(
        name=fields["name"],
        type=fields.get("CA type"),
        firmware=fields.get("Firmware version"),
        ports=int(ports) if re.fullmatch(r"[0-9]{1,6}", ports) else None,
        line=line,
    )


def _make_port(
    ca: str, number: int, fields: dict[str, str], line: int, key_lines: dict[str, int]
) -> IbPort:
    return IbPort(
        ca=ca,
        port=number,
        state=_state(fields["State"]) if "State" in fields else None,
        physical_state=_state(fields["Physical state"]) if "Physical state" in fields else None,
        rate=_rate(fields.get("Rate"), key_lines.get("Rate", line)),
        link_layer=fields.get("Link layer"),
        base_lid=fields.get("Base lid"),
        port_guid=fields.get("Port GUID"),
        line=line,
    )


def _parse_ibstatus(text: str) -> IbstatResult:
    ports: list[IbPort] = []
    cas: list[IbCa] = []
    errors: list[str] = []
    current: tuple[str, int, int] | None = None
    fields: dict[str, str] = {}
    key_lines: dict[str, int] = {}

    def flush() -> None:
        if current is None:
            return
        name, number, line = current
        mapped = {
            "State": fields.get("state", ""),
            "Physical state": fields.get("phys state", ""),
            "Link layer": fields.get("link_layer", ""),
            "Base lid": fields.get("base lid", ""),
        }
        present = {k: v for k, v in mapped.items() if v}
        if "rate" in fields:
            present["Rate"] = fields["rate"]
        lines = {"Rate": key_lines.get("rate", line)}
        ports.append(_make_port(name, number, present, line, lines))
        if name not in {c.name for c in cas}:
            cas.append(IbCa(name=name, type=None, firmware=None, line=line))

    for lineno, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if not s:
            continue
        m = _IBSTATUS_RE.match(s)
        if m:
            flush()
            current, fields = (m.group(1), _port_number(m.group(2), lineno), lineno), {}
            key_lines = {}
            continue
        if current is None:
            errors.append(s)
            continue
        m_kv = _KV_RE.match(s)
        if m_kv is None:
            raise IbstatError(f"expected 'key: value', found {s[:40]!r}", line=lineno, kind=KIND)
        fields[m_kv.group(1).strip()] = m_kv.group(2)
        key_lines[m_kv.group(1).strip()] = lineno
    flush()
    if not ports:
        raise IbstatError("no 'Infiniband device ... status:' blocks found", kind=KIND)
    return IbstatResult(
        ports=tuple(ports), cas=tuple(cas), errors=tuple(errors), source_format="ibstatus"
    )
