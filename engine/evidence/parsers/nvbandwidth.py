"""`nvbandwidth` (NVIDIA): copy bandwidth (GB/s) and latency (ns) matrices per testcase.

Plain text, one block per testcase:

    Running host_to_device_memcpy_ce.
    memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
               0         1         2 ...
     0     55.21     55.19     55.24 ...

    SUM host_to_device_memcpy_ce 441.62

The first lines name the release, the CUDA runtime and driver, and the devices. A testcase that
prints several matrices (bidirectional device-to-device: Read1, Read2, Total) follows each with
its own `SUM <key>_<part>` line; `--perfFormatter` writes `&&&& PERF <key> <sum>GB/s` instead;
`-v` adds MIN/MAX/AVG lines; the diagonal reads N/A. Releases before 0.4 wrote "Running
benchmark <name>." and no SUM line. `-j` prints one JSON document (parsed by
`nvbandwidth_json`), which this module's `parse` hands on to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.evidence.parsers.base import NvbandwidthError, decode_text, parse_number
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "nvbandwidth"

_RUNNING_RE = re.compile(r"^Running\s+(?:benchmark\s+)?([a-z][a-z0-9_]*)\s*\.?\s*$")
_DESCRIPTION_RE = re.compile(
    r"^(?:memcpy|memory latency|Device to Device Latency)\b.*\((GB/s|ns)\)\s*$"
)
_SUM_RE = re.compile(r"^(?:SUM|&&&&\s+PERF)\s+([a-z][a-z0-9_]*)\s+(\S+?)(?:GB/s|ns)?\s*$")
_STAT_RE = re.compile(r"^(?:MIN|MAX|AVG)\s+[a-z][a-z0-9_]*\s+\S+\s*$")
_VERSION_RE = re.compile(r"^nvbandwidth Version:\s*(\S+)", re.I)
_DRIVER_RE = re.compile(r"^Driver Version:\s*(\S+)")
_CUDA_RE = re.compile(r"^CUDA Runtime Version:\s*(\d+)")
_DEVICE_RE = re.compile(r"^Device\s+(\d+):\s*(.+?)\s*$")
_STATUS_RE = re.compile(r"^(Waived|Error|ERROR|Not Found)\s*:\s*(.*)$")
# CU_ASSERT / CUDA_ASSERT before nvbandwidth exits: "[CUDA_ERROR_X] text in expression ...";
# NVML_ASSERT writes "NVML_ERROR: [text] in expression ...".
_CUDA_ERROR_RE = re.compile(
    r"^(?:\[((?:CUDA_ERROR|cuda|NVML_ERROR)\w*)\]\s*(.*?)|(NVML_ERROR):\s*\[(.*?)\])"
    r"(?:\s+in expression\b.*)?$"
)
# ASSERT(x) before nvbandwidth exits; multi-node builds put " on <host>, rank = N" after x.
_ASSERT_RE = re.compile(
    r"^ASSERT in expression\s+(.+?)(?:\s+on\s+\S+,\s+rank\s*=\s*\d+)?\s+in\s+\S"
)
# The copy check found a word that differs from the pattern written: the data was corrupted in
# transit. Older releases print "<0x...>" and "Current offset [ n/size ]" once per bad word,
# newer ones "0x..." and "Current offset : n" once.
_PATTERN_RE = re.compile(r"^Invalid value when checking the pattern at\s*<?(0x[0-9a-fA-F]+)>?")
_OFFSET_RE = re.compile(r"^Current offset\s*(?::|\[)")
# Host memory (CPU) against device memory: what the host-device floor is judged on.
HOST_DEVICE_TESTCASES = frozenset(
    {
        "host_to_device_memcpy_ce",
        "device_to_host_memcpy_ce",
        "host_to_device_memcpy_sm",
        "device_to_host_memcpy_sm",
    }
)


@dataclass(frozen=True)
class Matrix:
    """One printed matrix: rows and columns are labelled as the tool labels them."""

    testcase: str
    description: str
    unit: str  # "GB/s" or "ns"
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]  # None: N/A (the diagonal, an absent peer)
    key: str | None = None  # the SUM line's key: the testcase, or e.g. "<testcase>_read1"
    total: float | None = None  # the SUM line's value
    line: int | None = None

    def cells(self) -> list[tuple[str, str, float]]:
        """(row, column, value) of every measured cell, N/A left out."""
        return [
            (row, col, value)
            for row, values in zip(self.rows, self.values, strict=True)
            for col, value in zip(self.columns, values, strict=True)
            if value is not None
        ]


@dataclass(frozen=True)
class NvbandwidthResult:
    KIND: ClassVar[str] = KIND
    matrices: tuple[Matrix, ...]
    version: str | None = None
    driver_version: str | None = None
    cuda_runtime_version: str | None = None
    devices: tuple[str, ...] = ()
    waived: int = 0  # testcases the system cannot run (e.g. no peer access)
    errors: tuple[str, ...] = ()
    json_output: bool = False
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})

    def testcase(self, name: str) -> list[Matrix]:
        return [m for m in self.matrices if m.testcase == name]


def detect(text: str) -> float:
    head = text[:20_000]
    if re.search(r'^\s*\{\s*"nvbandwidth"\s*:', head) or '"bandwidth_matrix"' in head:
        return 0.95
    if re.search(r"^nvbandwidth Version:", head, re.M | re.I):
        return 0.95
    running = re.search(r"^Running\s+(?:benchmark\s+)?[a-z0-9_]+_(?:ce|sm)\s*\.", head, re.M)
    described = re.search(r"^memcpy (?:CE|SM) .*bandwidth \(GB/s\)", head, re.M)
    if running and described:
        return 0.9
    return 0.6 if described else 0.0


@dataclass
class _Open:
    testcase: str
    description: str
    unit: str
    line: int
    columns: tuple[str, ...] = ()
    rows: list[str] = field(default_factory=list)
    values: list[tuple[float | None, ...]] = field(default_factory=list)

    def freeze(self, key: str | None = None, total: float | None = None) -> Matrix:
        return Matrix(
            self.testcase,
            self.description,
            self.unit,
            self.columns,
            tuple(self.rows),
            tuple(self.values),
            key,
            total,
            self.line,
        )


def _cell(token: str, lineno: int, what: str) -> float | None:
    if token == "N/A":
        return None
    value = parse_number(token) if len(token) < 40 else None
    if value is None or value < 0:
        raise NvbandwidthError(
            f"{what} reads {token[:30]!r}, not a measurement or N/A", line=lineno, kind=KIND
        )
    return float(value)


def _row(block: _Open, s: str, lineno: int) -> None:
    label, *tokens = s.split()
    if len(tokens) != len(block.columns):
        raise NvbandwidthError(
            f"{block.testcase} row {label} has {len(tokens)} values for {len(block.columns)} "
            "columns (file cut short?)",
            line=lineno,
            kind=KIND,
        )
    what = f"{block.testcase} row {label}"
    block.values.append(tuple(_cell(t, lineno, what) for t in tokens))
    block.rows.append(label)


@dataclass
class _State:
    testcase: str | None = None
    testcase_line: int = 0
    open: _Open | None = None
    matrices: list[Matrix] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    devices: list[str] = field(default_factory=list)
    waived: int = 0
    errors: list[str] = field(default_factory=list)
    reported: bool = True  # whether the testcase running printed a matrix, status or error

    def unreported(self) -> None:
        """A testcase that printed nothing before the next one (or the end of the file)."""
        if self.testcase is not None and not self.reported:
            self.errors.append(f"{self.testcase}: started but printed no result (cut short?)")
        self.reported = True

    def close(self, key: str | None = None, total: float | None = None) -> None:
        if self.open is not None:
            if not self.open.rows:
                raise NvbandwidthError(
                    f"{self.open.testcase}: matrix heading without any row (file cut short?)",
                    line=self.open.line,
                    kind=KIND,
                )
            self.matrices.append(self.open.freeze(key, total))
            self.open = None


def _sum(state: _State, m: re.Match[str], lineno: int) -> None:
    total = parse_number(m.group(2)) if len(m.group(2)) < 40 else None
    if total is None or total < 0:
        raise NvbandwidthError(
            f"SUM for {m.group(1)} reads {m.group(2)[:30]!r}, not a number", line=lineno, kind=KIND
        )
    if state.open is None:
        raise NvbandwidthError(
            f"SUM for {m.group(1)} without a matrix before it", line=lineno, kind=KIND
        )
    state.close(m.group(1), float(total))


def _header(state: _State, s: str) -> bool:
    for name, regex in (
        ("version", _VERSION_RE),
        ("driver", _DRIVER_RE),
        ("cuda", _CUDA_RE),
    ):
        if m := regex.match(s):
            state.meta.setdefault(name, m.group(1))
            return True
    if (m := _DEVICE_RE.match(s)) and state.testcase is None:
        state.devices.append(f"{m.group(1)}: {m.group(2)}")
        return True
    return False


def _line(state: _State, s: str, lineno: int) -> None:
    if m := _RUNNING_RE.match(s):
        state.close()
        state.unreported()
        state.testcase, state.testcase_line, state.reported = m.group(1), lineno, False
    elif m := _CUDA_ERROR_RE.match(s):
        state.close()
        state.reported = True
        code, text = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        state.errors.append(f"{state.testcase or 'nvbandwidth'}: [{code}] {text}")
    elif m := _PATTERN_RE.match(s):
        state.close()
        state.reported = True
        error = f"{state.testcase or 'nvbandwidth'}: copied data did not match the pattern written"
        if not any(e.startswith(error) for e in state.errors):
            state.errors.append(f"{error} (first wrong value at {m.group(1)})")
    elif _OFFSET_RE.match(s):
        pass
    elif m := _ASSERT_RE.match(s):
        state.close()
        state.reported = True
        state.errors.append(f"{state.testcase or 'nvbandwidth'}: ASSERT {m.group(1)} failed")
    elif m := _DESCRIPTION_RE.match(s):
        state.close()
        state.reported = True
        if state.testcase is None:
            raise NvbandwidthError(
                "matrix heading before any 'Running <testcase>.' line", line=lineno, kind=KIND
            )
        state.open = _Open(state.testcase, s, m.group(1), lineno)
    elif m := _SUM_RE.match(s):
        _sum(state, m, lineno)
    elif m := _STATUS_RE.match(s):
        state.close()
        state.reported = True
        if m.group(1) == "Waived":
            state.waived += 1
        else:
            state.errors.append(f"{state.testcase or 'nvbandwidth'}: {m.group(2) or m.group(1)}")
    elif state.open is not None and not state.open.columns:
        state.open.columns = tuple(s.split())
    elif state.open is not None and s.split()[0].lstrip("-").isdigit():
        _row(state.open, s, lineno)
    elif not _header(state, s) and not _STAT_RE.match(s) and state.open is not None:
        state.close()


def parse(text: str | bytes) -> NvbandwidthResult:
    text = decode_text(text, kind=KIND, error=NvbandwidthError)
    if text.lstrip().startswith("{"):
        from engine.evidence.parsers.nvbandwidth_json import parse_json

        return parse_json(text)
    state = _State()
    for lineno, raw in enumerate(text.split("\n"), start=1):
        s = raw.strip()
        if s:
            _line(state, s, lineno)
    state.close()
    if state.matrices or state.errors:
        state.unreported()
    if not state.matrices and not state.errors:
        if state.testcase is not None:
            raise NvbandwidthError(
                f"{state.testcase} started but printed no matrix (file cut short?)",
                line=state.testcase_line,
                kind=KIND,
            )
        first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
        raise NvbandwidthError(
            f"no nvbandwidth testcase found; first line reads {first[:60]!r}", kind=KIND
        )
    return NvbandwidthResult(
        matrices=tuple(state.matrices),
        version=state.meta.get("version"),
        driver_version=state.meta.get("driver"),
        cuda_runtime_version=state.meta.get("cuda"),
        devices=tuple(state.devices),
        waived=state.waived,
        errors=tuple(state.errors),
    )
