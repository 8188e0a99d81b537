"""One entry point for every evidence kind: detection, parsing and JSON export.

The upload pipeline, the management commands and the checks all go through here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.collector import collector_paused
from engine.evidence.parsers import (
    dcgmi_diag,
    fixture_result,
    ibqueryerrors,
    ibstat,
    nccl_tests,
    nvbandwidth,
    nvidia_smi_dmon,
    nvidia_smi_query,
    nvidia_smi_topo,
    perfquery,
    perftest,
    step_times,
)
from engine.evidence.parsers.base import (
    ParseError,
    UnrecognisedEvidence,
    decode_text,
    strip_line_timestamps,
    to_jsonable,
)
from engine.evidence.parsers.dcgmi_diag import DcgmiResult
from engine.evidence.parsers.fixture_result import FixtureResult
from engine.evidence.parsers.header import split_header
from engine.evidence.parsers.ibqueryerrors import IbqueryerrorsResult
from engine.evidence.parsers.ibstat import IbstatResult
from engine.evidence.parsers.nccl_model import NcclTestsResult
from engine.evidence.parsers.nvbandwidth import NvbandwidthResult
from engine.evidence.parsers.nvidia_smi_dmon import DmonResult
from engine.evidence.parsers.nvidia_smi_query import GpuQueryResult
from engine.evidence.parsers.nvidia_smi_topo import TopoResult
from engine.evidence.parsers.perfquery import PerfqueryResult
from engine.evidence.parsers.perftest import PerftestResult
from engine.evidence.parsers.step_times import StepTimesResult

ParsedEvidence = (
    NcclTestsResult
    | TopoResult
    | GpuQueryResult
    | DcgmiResult
    | IbstatResult
    | StepTimesResult
    | FixtureResult
    | PerfqueryResult
    | IbqueryerrorsResult
    | NvbandwidthResult
    | PerftestResult
    | DmonResult
)

# Below this score a file is not claimed by any parser.
MIN_CONFIDENCE = 0.5


@dataclass(frozen=True)
class Parser:
    kind: str
    detect: Callable[[str], float]
    parse: Callable[[str | bytes], ParsedEvidence]


_PARSERS: dict[str, Parser] = {
    p.kind: p
    for p in (
        Parser(nccl_tests.KIND, nccl_tests.detect, nccl_tests.parse),
        Parser(nvidia_smi_topo.KIND, nvidia_smi_topo.detect, nvidia_smi_topo.parse),
        Parser(nvidia_smi_query.KIND, nvidia_smi_query.detect, nvidia_smi_query.parse),
        Parser(dcgmi_diag.KIND, dcgmi_diag.detect, dcgmi_diag.parse),
        Parser(ibstat.KIND, ibstat.detect, ibstat.parse),
        Parser(step_times.KIND, step_times.detect, step_times.parse),
        Parser(fixture_result.KIND, fixture_result.detect, fixture_result.parse),
        Parser(perfquery.KIND, perfquery.detect, perfquery.parse),
        Parser(ibqueryerrors.KIND, ibqueryerrors.detect, ibqueryerrors.parse),
        Parser(nvbandwidth.KIND, nvbandwidth.detect, nvbandwidth.parse),
        Parser(perftest.KIND, perftest.detect, perftest.parse),
        Parser(nvidia_smi_dmon.KIND, nvidia_smi_dmon.detect, nvidia_smi_dmon.parse),
    )
}

KINDS: tuple[str, ...] = tuple(_PARSERS)


def detect_kind(text: str | bytes) -> str:
    """The kind whose parser is most confident; UnrecognisedEvidence when none is confident."""
    _, decoded = split_header(decode_text(text))
    decoded = strip_line_timestamps(decoded)
    if not decoded.strip():
        raise UnrecognisedEvidence("empty file: nothing to recognise")
    scores = {kind: p.detect(decoded) for kind, p in _PARSERS.items()}
    kind, best = max(scores.items(), key=lambda item: item[1])
    if best < MIN_CONFIDENCE:
        first = next((ln.strip() for ln in decoded.split("\n") if ln.strip()), "")
        raise UnrecognisedEvidence(
            "unrecognised evidence: not nccl-tests, nvidia-smi (topo -m, --query-gpu, table, "
            "-q, -q -x, -L, dmon), dcgmi diag, ibstat, perfquery, ibqueryerrors, nvbandwidth, "
            "perftest "
            "(ib_write_bw, ib_write_lat...), a step-time CSV or fixture output; "
            f"first line reads {first[:60]!r}"
        )
    return kind


def parse_evidence(text: str | bytes, kind: str | None = None) -> ParsedEvidence:
    """Parse text as `kind` (detected when None). Raises a ParseError subclass on bad input.

    The collector's header, when present, is taken off first and kept as the result's `origin`.
    """
    origin, decoded = split_header(decode_text(text, kind=kind))
    decoded = strip_line_timestamps(decoded)
    if kind is None:
        kind = detect_kind(decoded)
    parser = _PARSERS.get(kind)
    if parser is None:
        raise UnrecognisedEvidence(
            f"unknown evidence kind {kind!r}; expected one of {', '.join(KINDS)}"
        )
    try:
        with collector_paused():
            parsed = parser.parse(decoded)
    except ParseError as exc:
        if exc.kind is None:
            exc.kind = kind
        raise
    except (RecursionError, MemoryError) as exc:  # pathological input must stay a clean error
        raise ParseError(
            f"{kind} file could not be parsed: {type(exc).__name__}", kind=kind
        ) from exc
    return dataclasses.replace(parsed, origin=origin) if origin is not None else parsed


def to_json(parsed: ParsedEvidence) -> dict[str, Any]:
    """JSON-safe dict of a parse result, with its `kind` first."""
    with collector_paused():
        body = to_jsonable(parsed)
    assert isinstance(body, dict)
    if parsed.origin is not None:
        body["origin"] = to_jsonable(parsed.origin)
    return {"kind": parsed.KIND, **body}


def parse_file(path: str | Path, *, kind: str | None = None) -> dict[str, Any]:
    """Read, parse and export one file (the CLI's whole job). Raises ParseError or OSError."""
    data = Path(path).read_bytes()
    return to_json(parse_evidence(data, kind))
