"""One nccl-tests text run as it accumulates, and its data rows read from whitespace tokens."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from engine.evidence.parsers.base import NcclTestsError
from engine.evidence.parsers.nccl_model import (
    KIND,
    NcclBandwidth,
    NcclDevice,
    NcclRow,
    NcclTestsResult,
    collective_from_program,
    infer_collective,
    version_from_code,
)

_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s+(-?\d+)(?:\s+(.*))?$")
_GLUED_RE = re.compile(r"^(?:-?\d+\.\d\d){2,}$")
_TWO_DEC_RE = re.compile(r"-?\d+\.\d\d")
_DATE_RE = re.compile(r"^\d{4}-\d\d-\d\d$")


@dataclass
class RunState:
    """Mutable accumulator for one test run inside a file."""

    start_line: int
    program: str | None = None
    tests_version: str | None = None
    library_code: int | None = None
    nccl_version: str | None = None
    library: str | None = None  # "RCCL" where the banner, the tool or the devices say so
    cuda_version: str | None = None
    # From NCCL's INFO lines, by the host that printed them.
    host_cuda: dict[str, str] = field(default_factory=dict)
    host_backends: dict[str, str] = field(default_factory=dict)
    min_bytes: int | None = None
    max_bytes: int | None = None
    step_factor: int | None = None
    warmup: int | None = None
    iters: int | None = None
    validation: int | None = None
    devices: dict[int, NcclDevice] = field(default_factory=dict)
    rows: list[NcclRow] = field(default_factory=list)
    row_label: str | None = None
    columns_per_side: int = 4
    has_root: bool = True  # releases before the root column printed 12 columns
    headers: int = 0  # "# nThread" lines read before the first device line
    device_labels: dict[int, str | None] = field(default_factory=dict)
    timestamp: bool = False
    error_column: str = "wrong"
    saw_header: bool = False
    out_of_bounds: int | None = None
    bitwise_mismatches: int | None = None
    avg_busbw: float | None = None
    complete: bool = False
    concluded: bool = False
    errors: list[str] = field(default_factory=list)
    error_line: int | None = None
    command_program: str | None = None
    pending: NcclTestsError | None = None  # a broken row that is fine only if nothing follows

    def has_body(self) -> bool:
        return bool(self.rows) or self.complete or self.concluded

    def build(self) -> NcclTestsResult:
        devices = tuple(self.devices[r] for r in sorted(self.devices))
        rows = tuple(self.rows)
        ranks = len(devices) if devices else None
        collective = (
            collective_from_program(self.program or "")
            or collective_from_program(self.command_program or "")
            or infer_collective(rows, ranks)
        )
        nccl_version = self.nccl_version
        if nccl_version is None and self.library_code:
            nccl_version = version_from_code(self.library_code)
        hosts: list[str] = []
        for d in devices:
            if d.host not in hosts:
                hosts.append(d.host)
        return NcclTestsResult(
            collective=collective,
            ranks=ranks,
            rows=rows,
            out_of_bounds=self.out_of_bounds,
            avg_busbw=self.avg_busbw,
            nccl_version=nccl_version,
            library=self.library or _library_of_devices(devices),
            devices=devices,
            cuda_version=self.cuda_version,
            host_cuda=dict(self.host_cuda),
            collective_backends=dict(self.host_backends),
            errors=tuple(self.errors),
            min_bytes=self.min_bytes,
            max_bytes=self.max_bytes,
            step_factor=self.step_factor,
            iters=self.iters,
            warmup_iters=self.warmup,
            validation=self.validation,
            datatype=rows[0].type if rows else None,
            nodes=tuple(hosts),
            nccl_tests_version=self.tests_version,
            error_column=self.error_column,
            complete=self.complete,
            truncated=self.pending is not None,
            error_line=self.error_line,
            bitwise_mismatches=self.bitwise_mismatches,
        )


def _number(token: str, lineno: int, what: str) -> float | None:
    if token == "N/A":
        return None
    try:
        value = float(token)
    except ValueError:
        value = math.nan
    # float() also takes 'inf' and 'nan': a corrupt row must not pass a bandwidth threshold.
    if not math.isfinite(value):
        raise NcclTestsError(
            f"expected a finite number for {what} in a nccl-tests data row, found {token!r}",
            line=lineno,
            kind=KIND,
        )
    return value


def _side(tokens: list[str], lineno: int, run: RunState) -> NcclBandwidth:
    time_us = _number(tokens[0], lineno, "time")
    algbw = _number(tokens[1], lineno, "algbw")
    busbw = _number(tokens[2], lineno, "busbw")
    raw = _number(tokens[3], lineno, "#wrong" if run.error_column == "wrong" else "error")
    if run.error_column == "max_delta":
        return NcclBandwidth(time_us, algbw, busbw, None, raw)
    if raw is not None and (raw < 0 or raw != int(raw)):
        raise NcclTestsError(
            f"expected a whole count of wrong elements for #wrong, found {tokens[3]!r}",
            line=lineno,
            kind=KIND,
        )
    return NcclBandwidth(time_us, algbw, busbw, None if raw is None else int(raw))


def _unglue(tokens: list[str]) -> list[str]:
    """Split '1049.90524.95'-style tokens where two %.2f columns overflowed into each other."""
    out: list[str] = []
    for tok in tokens:
        if _GLUED_RE.match(tok):
            out.extend(_TWO_DEC_RE.findall(tok))
        else:
            out.append(tok)
    return out


def parse_row(line: str, tokens: list[str], lineno: int, run: RunState) -> NcclRow:
    if not run.has_root and len(tokens) >= 5:
        # Old layout without a root column: no root was shown, as -1 says in later releases.
        tokens = [*tokens[:4], "-1", *tokens[4:]]
        line = " ".join(tokens)
    if len(tokens) == 13 and run.columns_per_side == 4 and run.error_column == "wrong":
        row = _plain_row(tokens, lineno)
        if row is not None:
            return row
    m = _ROW_RE.match(line)
    if m is None:
        lead = 0 if run.has_root else 1  # the root column this layout lacks
        raise NcclTestsError(
            f"expected {13 - lead} columns in a nccl-tests data row, found {len(tokens) - lead}",
            line=lineno,
            kind=KIND,
        )
    return _checked_row(m, lineno, run)


def _plain_row(t: list[str], lineno: int) -> NcclRow | None:
    """The common row (13 plain columns, whole #wrong counts) without per-token checks; None
    sends anything unusual (N/A, glued or non-finite numbers) to _checked_row, which reads it
    token by token and names the problem."""
    # The checked path reads the root with -?\d+; int() would also take '+5' or '1_0'.
    if not t[4].lstrip("-").isdecimal() or not (t[2] + t[3]).isidentifier():
        return None
    try:
        root, o_wrong, i_wrong = int(t[4]), int(t[8]), int(t[12])
        o_time, o_alg, o_bus = float(t[5]), float(t[6]), float(t[7])
        i_time, i_alg, i_bus = float(t[9]), float(t[10]), float(t[11])
    except ValueError:
        return None
    if o_wrong < 0 or i_wrong < 0:
        return None
    # One sum is finite only when every term is (an overflow merely takes the careful path).
    if not math.isfinite(o_time + o_alg + o_bus + i_time + i_alg + i_bus):
        return None
    return NcclRow(
        size=int(t[0]),
        count=int(t[1]),
        type=t[2],
        redop=t[3],
        root=root,
        out_of_place=NcclBandwidth(o_time, o_alg, o_bus, o_wrong),
        in_place=NcclBandwidth(i_time, i_alg, i_bus, i_wrong),
        line=lineno,
    )


def _checked_row(m: re.Match[str], lineno: int, run: RunState) -> NcclRow:
    per_side = run.columns_per_side
    tokens = (m.group(6) or "").split()
    # -T appends a "YYYY-mm-dd HH:MM:SS" timestamp (two tokens) after the in-place columns.
    if len(tokens) >= 2 and _DATE_RE.match(tokens[-2]):
        tokens = tokens[:-2]
    expected = 2 * per_side
    if len(tokens) < expected:
        tokens = _unglue(tokens)
    if len(tokens) != expected:
        lead = 5 if run.has_root else 4
        raise NcclTestsError(
            f"expected {lead + expected} columns in a nccl-tests data row, "
            f"found {lead + len(tokens)}",
            line=lineno,
            kind=KIND,
        )
    out_place = _side(tokens[0:4], lineno, run)
    in_place = _side(tokens[per_side : per_side + 4], lineno, run)
    return NcclRow(
        size=int(m.group(1)),
        count=int(m.group(2)),
        type=m.group(3),
        redop=m.group(4),
        root=int(m.group(5)),
        out_of_place=out_place,
        in_place=in_place,
        line=lineno,
    )


def _library_of_devices(devices: tuple[NcclDevice, ...]) -> str:
    """An output with no banner: AMD's GPUs (`AMD Instinct MI210`) run RCCL, the rest NCCL."""
    return "RCCL" if any(d.name.startswith("AMD ") for d in devices) else "NCCL"
