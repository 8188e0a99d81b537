"""Result types for nccl-tests output (text and -J JSON) and the collective inference they share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engine.domain import COLLECTIVES
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "nccl-tests"


@dataclass(frozen=True)
class NcclBandwidth:
    time_us: float | None
    algbw: float | None
    busbw: float | None
    # None where the tool printed N/A (no validation) or used the pre-2.13 maxDelta column.
    wrong: int | None
    max_delta: float | None = None


@dataclass(frozen=True)
class NcclRow:
    size: int
    count: int
    type: str
    redop: str
    root: int
    out_of_place: NcclBandwidth | None
    in_place: NcclBandwidth | None
    line: int | None = None


@dataclass(frozen=True)
class NcclDevice:
    rank: int
    host: str
    device: int
    name: str
    pid: int | None = None
    bus_id: str | None = None
    group: int | None = None


@dataclass(frozen=True)
class NcclTestsResult:
    KIND: ClassVar[str] = KIND
    collective: str | None
    ranks: int | None
    rows: tuple[NcclRow, ...]
    out_of_bounds: int | None
    avg_busbw: float | None
    nccl_version: str | None
    devices: tuple[NcclDevice, ...]
    errors: tuple[str, ...]
    # Whose library ran: "NCCL", or "RCCL" for AMD's rccl-tests (its version is `nccl_version`).
    library: str = "NCCL"
    min_bytes: int | None = None
    max_bytes: int | None = None
    step_factor: int | None = None
    iters: int | None = None
    warmup_iters: int | None = None
    validation: int | None = None
    datatype: str | None = None
    nodes: tuple[str, ...] = ()
    nccl_tests_version: str | None = None
    error_column: str = "wrong"  # "max_delta" for pre-2.13 output
    complete: bool = False  # the "Avg bus bandwidth" trailer was reached
    truncated: bool = False  # the last data row was cut short
    error_line: int | None = None
    source_format: str = "text"
    # "Bitwise mismatches : N" of a run with bitwise repeatability checks (-B, newer releases).
    bitwise_mismatches: int | None = None
    # The CUDA runtime of the version banner ("NCCL version 2.21.5+cuda12.4"), and with
    # NCCL_DEBUG=INFO each host's banner CUDA and the GIN backend NCCL assigned (nccl_debug.py).
    cuda_version: str | None = None
    host_cuda: dict[str, str] = field(default_factory=dict)
    collective_backends: dict[str, str] = field(default_factory=dict)
    # Further test runs found in the same file (e.g. a script that ran several binaries).
    runs: tuple[NcclTestsResult, ...] = field(default=())
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


_PERF_RE = re.compile(r"\b([a-z][a-z0-9_]*?)_perf(?:_mpi)?\b")

_TYPE_SIZES = {
    "int8": 1,
    "uint8": 1,
    "char": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "f8e4m3": 1,
    "f8e5m2": 1,
    "half": 2,
    "bfloat16": 2,
    "float16": 2,
    "int32": 4,
    "uint32": 4,
    "int": 4,
    "float": 4,
    "float32": 4,
    "int64": 8,
    "uint64": 8,
    "double": 8,
    "float64": 8,
}


def collective_from_program(text: str) -> str | None:
    """'all_reduce_perf' (or a path to it) -> 'all_reduce'."""
    m = _PERF_RE.search(text)
    if m is None:
        return None
    name = m.group(1)
    return name if name in COLLECTIVES else None


def infer_collective(rows: tuple[NcclRow, ...], ranks: int | None) -> str | None:
    """Infer the collective from the data columns when the output never names the binary.

    all_reduce: reduction, count*typesize == size. reduce_scatter: reduction, size spread over
    ranks. reduce/broadcast: a root. all_gather vs alltoall: alltoall never validates in-place.
    """
    if not rows:
        return None
    row = rows[-1]
    tsize = _TYPE_SIZES.get(row.type.lower())
    ratio: float | None = None
    if tsize and row.count:
        try:
            ratio = row.size / (row.count * tsize)
        except OverflowError:  # sizes beyond any float: no ratio to infer from
            ratio = None
    reduces = row.redop.lower() != "none"
    if row.root >= 0:
        return "reduce" if reduces else "broadcast"
    if reduces:
        if ratio is None or ratio <= 1.0 or (ranks == 1 and ratio == 1.0):
            return "all_reduce"
        return "reduce_scatter"
    in_place_na = all(
        r.in_place is not None
        and r.in_place.wrong is None
        and r.out_of_place is not None
        and r.out_of_place.wrong is not None
        for r in rows
    )
    if ratio is not None and ratio <= 1.0:
        return "sendrecv"
    return "alltoall" if in_place_na else "all_gather"


def version_from_code(code: int) -> str:
    """NCCL_VERSION_CODE (22703) -> '2.27.3'; codes before 2.9 used major*1000+minor*100+patch."""
    if code >= 10000:
        return f"{code // 10000}.{(code % 10000) // 100}.{code % 100}"
    return f"{code // 1000}.{(code % 1000) // 100}.{code % 100}"
