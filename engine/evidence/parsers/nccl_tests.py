"""nccl-tests text output (all_reduce_perf and friends, v1 to v2.19 layouts) and -J JSON, and
that of rccl-tests, AMD's fork, which prints the same table (nccl_debug reads RCCL's banner).

Split on whitespace, never on fixed widths: bandwidths overflow their columns in old versions.
Launcher prefixes (srun -l, mpirun --tag-output) and interleaved MPI/NCCL chatter are skipped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from engine.evidence.parsers.base import NcclTestsError, decode_text, number_problem, split_prefix
from engine.evidence.parsers.nccl_debug import (
    banner,
    gin_backend,
    host_of,
    is_debug_line,
    library_of,
)
from engine.evidence.parsers.nccl_model import (
    KIND,
    NcclDevice,
    NcclTestsResult,
    collective_from_program,
)
from engine.evidence.parsers.nccl_rows import RunState, parse_row

__all__ = ["KIND", "NcclTestsError", "NcclTestsResult", "detect", "parse"]

# rccl-tests releases of 2023 write "nThreads: 1 nGpus: 4 nRanks: 1 ... warmupIters: 5".
_NTHREAD_RE = re.compile(
    r"^#\s*nThreads?:?\s+\d+\s+nGpus:?\s+\d+\s+(?:nRanks:?\s+\d+\s+)?"
    r"minBytes:?\s+(\d+)\s+maxBytes:?\s+(\d+)"
    r"\s+step:\s*(\d+)\((factor|bytes)\)\s+warmup\s*iters:\s*(\d+)\s+iters:\s*(\d+)"
    r"(?:.*?validation:\s*(\d+))?",
    re.I,
)
_TESTS_VERSION_RE = re.compile(r"^#\s*nccl-tests version\s+(\S+)(?:.*?nccl-library=(\d+))?")
# AMD's fork names its build instead, e.g. "rccl-tests: Version develop:83d38d9".
_RCCL_TESTS_VERSION_RE = re.compile(r"^rccl-tests: Version\s+(\S+)")
_STARTING_RE = re.compile(r"^#\s*Collective test (starting|concluded):\s*(\S+)")
_DEVICE_RE = re.compile(
    r"^#\s+Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)"
    r"\s+\[([^\]]*)\]\s*(.*?)\s*$"
)
_COLHEADER_RE = re.compile(r"^#\s*size\s+count\s+type\s+redop\s+(root\s+)?(.*)$")
_OOB_RE = re.compile(r"^#?\s*Out of bounds values\s*:\s*(\d+)")
_BITWISE_RE = re.compile(r"^#?\s*Bitwise mismatches\s*:\s*(\d+)")
_AVG_RE = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(\S+)")
_FAILURE_RE = re.compile(r"\bTest (?:\w+ )?failure\b|^#\s*error:")
_ROW_START_RE = re.compile(r"^\s*\d+(?:\s+\d+(?:\s|$)|\s*$)")
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
class _State:
    """What the line loop carries: the finished runs, the run being read, and whether the file
    held anything of nccl-tests at all."""

    run: RunState = field(default_factory=lambda: RunState(start_line=1))
    runs: list[RunState] = field(default_factory=list)
    saw_anything: bool = False

    def next_run(self, lineno: int) -> None:
        self.runs.append(self.run)
        self.run = RunState(start_line=lineno)


class _Line(NamedTuple):
    number: int
    label: str | None  # the launcher's prefix (srun -l, --tag-output), None without one
    text: str  # the line without that prefix
    stripped: str
    match: re.Match[str] | None
    tokens: list[str] | None  # a data row's columns


_Found = tuple[str, re.Match[str] | None, list[str] | None]


def _classify(s: str) -> _Found | None:
    """Which handler reads a stripped, non-empty line; None skips it."""
    if s[0] == "#":
        found = _classify_comment(s)
        if found is not None:
            return found
    elif s[0].isdigit():
        tokens = s.split()
        # 13 columns led by two whole numbers is a row (what _ROW_START_RE also says).
        if (len(tokens) == 13 and tokens[0].isdecimal() and tokens[1].isdecimal()) or (
            _ROW_START_RE.match(s)
        ):
            return "row", None, tokens
    return _classify_text(s)


def _classify_comment(s: str) -> _Found | None:
    # Each regex runs only on a line holding its literal word (most '#' lines are the device list).
    if "Collective test" in s and (m := _STARTING_RE.match(s)):
        return "start", m, None
    if "nThread" in s and (m := _NTHREAD_RE.match(s)):
        return "nthread", m, None
    if "nccl-tests version" in s and (m := _TESTS_VERSION_RE.match(s)):
        return "tests_version", m, None
    if "Rank" in s and (m := _DEVICE_RE.match(s)):
        return "device", m, None
    if m := _COLHEADER_RE.match(s):
        return "columns", m, None
    return None


def _classify_text(s: str) -> _Found | None:
    # Most lines are NCCL INFO chatter carrying none of the markers below: skip them early.
    if "NCCL INFO" in s and not is_debug_line(s):
        return None
    if s.startswith("rccl-tests:") and (m := _RCCL_TESTS_VERSION_RE.match(s)):
        return "tests_version", m, None
    if "Out of" in s and (m := _OOB_RE.match(s)):
        return "out_of_bounds", m, None
    if "Bitwise" in s and (m := _BITWISE_RE.match(s)):
        return "bitwise", m, None
    if "Avg bus" in s and (m := _AVG_RE.match(s)):
        return "average", m, None
    if is_debug_line(s) or "failure" in s or "error:" in s or "_perf" in s:
        return "text", None, None
    return None


def _on_start(state: _State, line: _Line) -> None:
    m = line.match
    assert m is not None
    state.saw_anything = True
    # A new header after data means a second test run in the same file.
    if m.group(1) == "starting":
        if state.run.has_body():
            state.next_run(line.number)
        state.run.program = m.group(2)
    else:
        state.run.concluded = True
        state.run.program = state.run.program or m.group(2)


def _on_nthread(state: _State, line: _Line) -> None:
    m = line.match
    assert m is not None
    state.saw_anything = True
    if state.run.has_body():
        state.next_run(line.number)
    run = state.run
    if not run.devices:
        run.headers += 1
    run.min_bytes, run.max_bytes = int(m.group(1)), int(m.group(2))
    run.step_factor = int(m.group(3)) if m.group(4) == "factor" else None
    run.warmup, run.iters = int(m.group(5)), int(m.group(6))
    if m.group(7) is not None:
        run.validation = int(m.group(7))


def _on_tests_version(state: _State, line: _Line) -> None:
    m = line.match
    assert m is not None
    state.saw_anything = True
    if state.run.has_body():
        state.next_run(line.number)
    state.run.tests_version = m.group(1)
    if m.re is _RCCL_TESTS_VERSION_RE:
        state.run.library = "RCCL"
    if m.re.groups > 1 and m.group(2):
        state.run.library_code = int(m.group(2))


def _on_device(state: _State, line: _Line) -> None:
    m = line.match
    assert m is not None
    state.saw_anything = True
    rank, run = int(m.group(1)), state.run
    device = NcclDevice(
        rank=rank,
        host=m.group(4),
        device=int(m.group(5)),
        name=m.group(7),
        pid=int(m.group(3)),
        bus_id=m.group(6),
        group=int(m.group(2)) if m.group(2) is not None else None,
    )
    first = run.devices.get(rank)
    if first is None:
        run.devices[rank] = device
        run.device_labels[rank] = line.label
    elif (first.host, first.pid) != (device.host, device.pid) and (
        run.headers > 1 or run.device_labels[rank] != line.label
    ):
        _raise_separate_runs(first, device, line.number)


def _raise_separate_runs(first: NcclDevice, again: NcclDevice, lineno: int) -> None:
    """Each process printed its own header: a build without MPI launched by mpirun or srun runs
    one independent test per process, and no table in the file covers all of them."""
    raise NcclTestsError(
        f"rank {again.rank} is listed twice, on {first.host} (pid {first.pid}) and on "
        f"{again.host} (pid {again.pid}): every process ran its own separate test, so this is "
        "not one multi-process run; build nccl-tests with MPI=1 and launch it again",
        line=lineno,
        kind=KIND,
    )


def _on_columns(state: _State, line: _Line) -> None:
    assert line.match is not None
    state.saw_anything = True
    if state.run.rows:
        state.next_run(line.number)
    names = line.match.group(2).split()
    run = state.run
    run.saw_header = True
    run.has_root = line.match.group(1) is not None
    run.error_column = "max_delta" if "error" in names and "#wrong" not in names else "wrong"
    # Each side: time, algbw, busbw, #wrong; then #bitdiff (-B) and i_min..i_cv% (per-iteration).
    run.columns_per_side = 4 + ("#bitdiff" in names) + (4 if "i_min" in names else 0)
    run.timestamp = "timestamp" in names


def _on_row(state: _State, line: _Line) -> None:
    run = state.run
    if run.pending is not None:
        raise run.pending  # a malformed row followed by more table
    if run.row_label is not None and line.label != run.row_label:
        return  # another rank echoing the table: keep rank 0's copy only
    assert line.tokens is not None
    try:
        row = parse_row(line.text, line.tokens, line.number, run)
    except NcclTestsError as exc:
        run.pending = exc  # fine only if the output ends here (a truncated tail)
        return
    if run.row_label is None:
        run.row_label = line.label
    run.rows.append(row)
    state.saw_anything = True


def _on_out_of_bounds(state: _State, line: _Line) -> None:
    assert line.match is not None
    state.run.out_of_bounds = int(line.match.group(1))
    state.saw_anything = True
    _raise_pending(state.run)


def _on_bitwise(state: _State, line: _Line) -> None:
    assert line.match is not None
    state.run.bitwise_mismatches = int(line.match.group(1))
    state.saw_anything = True


def _on_average(state: _State, line: _Line) -> None:
    assert line.match is not None
    try:
        avg = float(line.match.group(1))
    except ValueError:
        avg = math.nan
    state.run.avg_busbw = avg if math.isfinite(avg) else None  # informational only
    state.run.complete = True
    state.saw_anything = True
    _raise_pending(state.run)


def _on_text(state: _State, line: _Line) -> None:
    """The NCCL version banner, a failure message or the launch command, in that order."""
    s, run = line.stripped, state.run
    if is_debug_line(s):
        _on_debug(run, s)
    if ("failure" in s or "error:" in s) and _FAILURE_RE.search(s):
        run.errors.append(s)
        if run.error_line is None:
            run.error_line = line.number
        state.saw_anything = True
        return
    if run.command_program is None and "_perf" in s and collective_from_program(s):
        run.command_program = s


def _on_debug(run: RunState, s: str) -> None:
    """The version banner (once per run, or once per host with NCCL_DEBUG=INFO) and the GIN
    backend NCCL assigned; the first banner sets the run's versions."""
    host = host_of(s)
    if found := banner(s):
        version, cuda = found
        if run.nccl_version is None:
            run.nccl_version = version
            run.library = run.library or library_of(s)
        if cuda and run.cuda_version is None:
            run.cuda_version = cuda
        if cuda and host:
            run.host_cuda.setdefault(host, cuda)
    elif backend := gin_backend(s):
        run.host_backends.setdefault(host or "", backend)


_HANDLERS: dict[str, Callable[[_State, _Line], None]] = {
    "start": _on_start,
    "nthread": _on_nthread,
    "tests_version": _on_tests_version,
    "device": _on_device,
    "columns": _on_columns,
    "row": _on_row,
    "out_of_bounds": _on_out_of_bounds,
    "bitwise": _on_bitwise,
    "average": _on_average,
    "text": _on_text,
}


def _raise_pending(run: RunState) -> None:
    """A malformed row followed by more table is an error, not a truncated tail."""
    if run.pending is not None:
        raise run.pending


def _read_lines(text: str, state: _State) -> None:
    lineno = 0
    try:
        for lineno, raw in enumerate(text.split("\n"), start=1):
            # NCCL INFO chatter is most of a real log, and none of it but the banner is read.
            if "NCCL INFO" in raw and not is_debug_line(raw):
                continue
            # Only a line starting with a space, '[' or a digit, and holding a ':', can carry a
            # launcher label (data rows start with spaces but have no colon unless -T was used).
            if raw[:1] in _LABEL_START and ":" in raw:
                label, line = split_prefix(raw)
            else:
                label, line = None, raw
            s = line.strip()
            found = _classify(s) if s else None
            if found is not None:
                kind, match, tokens = found
                _HANDLERS[kind](state, _Line(lineno, label, line, s, match, tokens))
    except NcclTestsError:
        raise
    except (ValueError, OverflowError) as exc:  # int() refuses a \d+ token of 4,300+ digits
        raise NcclTestsError(number_problem(exc), line=lineno, kind=KIND) from None


def parse(text: str | bytes) -> NcclTestsResult:
    text = decode_text(text, kind=KIND, error=NcclTestsError)
    if text.lstrip().startswith("{"):
        from engine.evidence.parsers.nccl_tests_json import parse_json

        return parse_json(text)
    state = _State()
    _read_lines(text, state)
    runs = [*state.runs, state.run]
    if not state.saw_anything:
        raise NcclTestsError("no nccl-tests header, data rows or trailer found", kind=KIND)
    built = [r.build() for r in runs if r.has_body() or r.errors or r.devices or r.min_bytes]
    if not built:
        built = [runs[-1].build()]
    first = built[0]
    return replace(first, runs=tuple(built[1:])) if len(built) > 1 else first
