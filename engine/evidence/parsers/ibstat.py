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

_CA_RE = re.compile(r"^CA\s+'([^']+)'\s*$")
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
    if re.search(r"^CA '[^']+'\s*$", head, re.M) and "Port 1:" in head:
        return 0.95
    if re.search(r"^Infiniband device '[^']+' port \d+ status:", head, re.M):
        return 0.95
    if re.search(r"^CA '[^']+'\s*$", head, re.M):
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


def parse(text: str | bytes) -> IbstatResult:
    text = decode_text(text, kind=KIND, error=IbstatError)
    if re.search(r"^Infiniband device '", text, re.M):
        return _parse_ibstatus(text)
    cas: list[IbCa] = []
    ports: list[IbPort] = []
    errors: list[str] = []
    ca: dict[str, str] | None = None
    ca_line = 0
    port: dict[str, str] | None = None
    port_line = 0
    port_key_lines: dict[str, int] = {}
    port_no = 0

    def flush_port() -> None:
        nonlocal port
        if port is not None and ca is not None:
            ports.append(_make_port(ca["name"], port_no, port, port_line, port_key_lines))
        port = None

    def flush_ca() -> None:
        nonlocal ca
        flush_port()
        if ca is not None:
            cas.append(
                IbCa(
                    name=ca["name"],
                    type=ca.get("CA type"),
                    firmware=ca.get("Firmware version"),
                    ports=int(ca["Number of ports"])
                    if re.fullmatch(r"[0-9]{1,6}", ca.get("Number of ports", ""))
                    else None,
                    line=ca_line,
                )
            )
        ca = None

    for lineno, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("ibpanic:") or s.startswith("ibwarn:"):
            errors.append(s)
            continue
        m_ca = _CA_RE.match(s)
        if m_ca:
            flush_ca()
            ca, ca_line = {"name": m_ca.group(1)}, lineno
            continue
        if ca is None:
            raise IbstatError(
                f"expected a CA 'name' line, found {s[:40]!r}", line=lineno, kind=KIND
            )
        m_port = _PORT_RE.match(s)
        if m_port:
            flush_port()
            port, port_line, port_no = {}, lineno, _port_number(m_port.group(1), lineno)
            port_key_lines = {}
            continue
        m_kv = _KV_RE.match(s)
        if m_kv is None:
            raise IbstatError(f"expected 'Key: value', found {s[:40]!r}", line=lineno, kind=KIND)
        if port is not None:
            port[m_kv.group(1)] = m_kv.group(2)
            port_key_lines[m_kv.group(1)] = lineno
        else:
            ca[m_kv.group(1)] = m_kv.group(2)
    flush_ca()
    if not cas:
        raise IbstatError("no CA blocks found", kind=KIND)
    return IbstatResult(ports=tuple(ports), cas=tuple(cas), errors=tuple(errors))


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
