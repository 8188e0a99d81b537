"""nccl-tests text output (all_reduce_perf and friends, v1 to v2.19 layouts) and -J JSON.

Split on whitespace, never on fixed widths: bandwidths overflow their columns in old versions.
Launcher prefixes (srun -l, mpirun --tag-output) and interleaved MPI/NCCL chatter are skipped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from engine.evidence.parsers.base import NcclTestsError, decode_text, number_problem, split_prefix
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

__all__ = ["KIND", "NcclTestsError", "NcclTestsResult", "detect", "parse"]

_NTHREAD_RE = re.compile(
    r"^#\s*nThread\s+\d+\s+nGpus\s+\d+\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)"
    r"\s+step:\s*(\d+)\((factor|bytes)\)\s+warmup iters:\s*(\d+)\s+iters:\s*(\d+)"
    r"(?:.*?validation:\s*(\d+))?"
)
_TESTS_VERSION_RE = re.compile(r"^#\s*nccl-tests version\s+(\S+)(?:.*?nccl-library=(\d+))?")
_STARTING_RE = re.compile(r"^#\s*Collective test (starting|concluded):\s*(\S+)")
_DEVICE_RE = re.compile(
    r"^#\s+Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)"
    r"\s+\[([^\]]*)\]\s*(.*?)\s*$"
)
_NCCL_VERSION_RE = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_COLHEADER_RE = re.compile(r"^#\s*size\s+count\s+type\s+redop\s+root\s+(.*)$")
_OOB_RE = re.compile(r"^#?\s*Out of bounds values\s*:\s*(\d+)")
_AVG_RE = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(\S+)")
_FAILURE_RE = re.compile(r"\bTest (?:\w+ )?failure\b|^#\s*error:")
_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s+(-?\d+)(?:\s+(.*))?$")
_ROW_START_RE = re.compile(r"^\s*\d+(?:\s+\d+(?:\s|$)|\s*$)")
_GLUED_RE = re.compile(r"^(?:-?\d+\.\d\d){2,}$")
_TWO_DEC_RE = re.compile(r"-?\d+\.\d\d")
_DATE_RE = re.compile(r"^\d{4}-\d\d-\d\d$")
_LABEL_START = " [0123456789"  # what split_prefix's labels can start with ('' is in it too)


def detect(text: str) -> float:
    head = text[:200_000]
    stripped = head.lstrip()
    if stripped.startswith("{"):
        if '"results"' in head and ('"out_of_place"' in head or '"nccl_version"' in head):
            return 0.95
        return 0.0
    score = 0.0
    if "# nThread" in head or "# Collective test starting" in head:
        score = 0.95
    elif "Out of bounds values" in head or "Avg bus bandwidth" in head:
        score = 0.9
    elif "# Using devices" in head:
        score = 0.85
    elif re.search(r"^\S*\s*#\s+size\s+count\s+type\s+redop", head, re.M):
        score = 0.9
    elif re.search(r"Test (?:NCCL|CUDA) failure", head):
        score = 0.6
    return score


@dataclass
class _Run:
    """Mutable accumulator for one test run inside a file."""

    start_line: int
    program: str | None = None
    tests_version: str | None = None
    library_code: int | None = None
    nccl_version: str | None = None
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
    timestamp: bool = False
    error_column: str = "wrong"
    saw_header: bool = False
    out_of_bounds: int | None = None
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
            devices=devices,
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


def _side(tokens: list[str], lineno: int, run: _Run) -> NcclBandwidth:
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


def _parse_row(line: str, tokens: list[str], lineno: int, run: _Run) -> NcclRow:
    if len(tokens) == 13 and run.columns_per_side == 4 and run.error_column == "wrong":
        row = _plain_row(tokens, lineno)
        if row is not None:
            return row
    m = _ROW_RE.match(line)
    if m is None:
        raise NcclTestsError(
            f"expected 13 columns in a nccl-tests data row, found {len(tokens)}",
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


def _checked_row(m: re.Match[str], lineno: int, run: _Run) -> NcclRow:
    per_side = run.columns_per_side
    tokens = (m.group(6) or "").split()
    # -T appends a "YYYY-mm-dd HH:MM:SS" timestamp (two tokens) after the in-place columns.
    if len(tokens) >= 2 and _DATE_RE.match(tokens[-2]):
        tokens = tokens[:-2]
    expected = 2 * per_side
    if len(tokens) < expected:
        tokens = _unglue(tokens)
    if len(tokens) != expected:
        raise NcclTestsError(
            f"expected {5 + expected} columns in a nccl-tests data row, found {5 + len(tokens)}",
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


def _column_header(rest: str, run: _Run) -> None:
    names = rest.split()
    run.saw_header = True
    run.error_column = "max_delta" if "error" in names and "#wrong" not in names else "wrong"
    run.columns_per_side = 8 if "i_min" in names else 4
    run.timestamp = "timestamp" in names


def parse(text: str | bytes) -> NcclTestsResult:
    text = decode_text(text, kind=KIND, error=NcclTestsError)
    if text.lstrip().startswith("{"):
        from engine.evidence.parsers.nccl_tests_json import parse_json

        return parse_json(text)
    runs: list[_Run] = []
    run = _Run(start_line=1)
    saw_anything = False
    lineno = 0
    try:
        for lineno, raw in enumerate(text.split("\n"), start=1):
            # Only a line starting with a space, '[' or a digit, and holding a ':', can carry a
            # launcher label (data rows start with spaces but have no colon unless -T was used).
            if raw[:1] in _LABEL_START and ":" in raw:
                label, line = split_prefix(raw)
            else:
                label, line = None, raw
            s = line.strip()
            if not s:
                continue
            if s[0] == "#":
                # Each regex runs only on a line holding its literal word (most '#' lines are
                # the device list).
                m_start = _STARTING_RE.match(s) if "Collective test" in s else None
                m_nthread = _NTHREAD_RE.match(s) if m_start is None and "nThread" in s else None
                m_tv = (
                    _TESTS_VERSION_RE.match(s)
                    if m_start is None and m_nthread is None and "nccl-tests version" in s
                    else None
                )
                if m_start or m_nthread or m_tv:
                    saw_anything = True
                    # A new header after data means a second test run in the same file.
                    starting = m_start is not None and m_start.group(1) == "starting"
                    if run.has_body() and (starting or m_nthread or m_tv):
                        runs.append(run)
                        run = _Run(start_line=lineno)
                    if m_start:
                        if m_start.group(1) == "starting":
                            run.program = m_start.group(2)
                        else:
                            run.concluded = True
                            run.program = run.program or m_start.group(2)
                    elif m_tv:
                        run.tests_version = m_tv.group(1)
                        if m_tv.group(2):
                            run.library_code = int(m_tv.group(2))
                    elif m_nthread:
                        run.min_bytes, run.max_bytes = (
                            int(m_nthread.group(1)),
                            int(m_nthread.group(2)),
                        )
                        run.step_factor = (
                            int(m_nthread.group(3)) if m_nthread.group(4) == "factor" else None
                        )
                        run.warmup, run.iters = int(m_nthread.group(5)), int(m_nthread.group(6))
                        if m_nthread.group(7) is not None:
                            run.validation = int(m_nthread.group(7))
                    continue
                m_dev = _DEVICE_RE.match(s) if "Rank" in s else None
                if m_dev:
                    saw_anything = True
                    rank = int(m_dev.group(1))
                    run.devices.setdefault(
                        rank,
                        NcclDevice(
                            rank=rank,
                            host=m_dev.group(4),
                            device=int(m_dev.group(5)),
                            name=m_dev.group(7),
                            pid=int(m_dev.group(3)),
                            bus_id=m_dev.group(6),
                            group=int(m_dev.group(2)) if m_dev.group(2) is not None else None,
                        ),
                    )
                    continue
                m_col = _COLHEADER_RE.match(s)
                if m_col:
                    saw_anything = True
                    if run.rows:
                        runs.append(run)
                        run = _Run(start_line=lineno)
                    _column_header(m_col.group(1), run)
                    continue
            if s[0].isdigit():
                tokens = s.split()
                # 13 columns led by two whole numbers is a row (what _ROW_START_RE also says).
                if (
                    len(tokens) == 13 and tokens[0].isdecimal() and tokens[1].isdecimal()
                ) or _ROW_START_RE.match(s):
                    if run.pending is not None:
                        raise run.pending  # a malformed row followed by more table
                    if run.row_label is not None and label != run.row_label:
                        continue  # another rank echoing the table: keep rank 0's copy only
                    try:
                        row = _parse_row(line, tokens, lineno, run)
                    except NcclTestsError as exc:
                        run.pending = exc
                        continue
                    if run.row_label is None:
                        run.row_label = label
                    run.rows.append(row)
                    saw_anything = True
                    continue
            # Most lines are NCCL INFO chatter carrying none of the markers below: skip them early.
            if "NCCL INFO" in s and "NCCL version" not in s:
                continue
            if not (
                "Out of" in s
                or "Avg bus" in s
                or "NCCL version" in s
                or "failure" in s
                or "error:" in s
                or "_perf" in s
            ):
                continue
            m_oob = _OOB_RE.match(s) if "Out of" in s else None
            if m_oob:
                run.out_of_bounds = int(m_oob.group(1))
                saw_anything = True
                _raise_pending(run)
                continue
            m_avg = _AVG_RE.match(s) if "Avg bus" in s else None
            if m_avg:
                try:
                    avg = float(m_avg.group(1))
                except ValueError:
                    avg = math.nan
                run.avg_busbw = avg if math.isfinite(avg) else None  # informational only
                run.complete = True
                saw_anything = True
                _raise_pending(run)
                continue
            if "NCCL version" in s:
                m_ver = _NCCL_VERSION_RE.search(s)
                if m_ver and run.nccl_version is None:
                    run.nccl_version = m_ver.group(1)
            if ("failure" in s or "error:" in s) and _FAILURE_RE.search(s):
                run.errors.append(s)
                if run.error_line is None:
                    run.error_line = lineno
                saw_anything = True
                continue
            if run.command_program is None and "_perf" in s and collective_from_program(s):
                run.command_program = s
    except NcclTestsError:
        raise
    except (ValueError, OverflowError) as exc:  # int() refuses a \d+ token of 4,300+ digits
        raise NcclTestsError(number_problem(exc), line=lineno, kind=KIND) from None
    runs.append(run)
    if not saw_anything:
        raise NcclTestsError("no nccl-tests header, data rows or trailer found", kind=KIND)
    built = [r.build() for r in runs if r.has_body() or r.errors or r.devices or r.min_bytes]
    if not built:
        built = [runs[-1].build()]
    first = built[0]
    return replace(first, runs=tuple(built[1:])) if len(built) > 1 else first


def _raise_pending(run: _Run) -> None:
    """A malformed row followed by more table is an error, not a truncated tail."""
    if run.pending is not None:
        raise run.pending
