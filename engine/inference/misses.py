"""Each missed inference promise with the requests behind it: the diagnostic packet names the
file's lines (in a request log) or the request's position in the arrays (in a vLLM result) to
open first, slowest first.

A latency promise is missed by the responses beyond the promised figure: TTFT over it, or a
token gap over it (every gap of a vLLM result; a log's mean gap). Throughput and cost are figures
of the whole file: their packet lists the failed requests, which took time and served nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.inference.model import ServedRequest, ServedResponses
from engine.inference.outcome import InferenceOutcome, Row

MAX_LISTED = 20


@dataclass(frozen=True)
class Offender:
    where: str  # "line 7" in a log, "request 3" in a vLLM result
    ref: str
    ok: bool
    ttft_ms: float | None
    worst_gap_ms: float | None
    output_tokens: int
    error: str = ""


@dataclass(frozen=True)
class InferenceMiss:
    key: str
    label: str
    unit: str
    promised: object
    observed: object
    beyond: int  # requests behind the miss (beyond the promise, or failed)
    requests: tuple[Offender, ...]  # the worst of them, at most MAX_LISTED
    note: str


def _offender(request: ServedRequest) -> Offender:
    return Offender(
        where=f"line {request.line}" if request.line is not None else request.ref,
        ref=request.ref,
        ok=request.ok,
        ttft_ms=request.ttft_ms,
        worst_gap_ms=max(request.itls_ms) if request.itls_ms else None,
        output_tokens=request.output_tokens,
        error=request.error,
    )


def _ttft(request: ServedRequest) -> float:
    return request.ttft_ms or 0.0


def _gap(request: ServedRequest) -> float:
    return max(request.itls_ms) if request.itls_ms else 0.0


def _picked(
    served: ServedResponses, row: Row
) -> tuple[list[ServedRequest], Callable[[ServedRequest], float], str]:
    limit = float(row.promised or 0)
    if row.key.startswith("ttft"):
        over = [r for r in served.completed if _ttft(r) > limit]
        return over, _ttft, f"{len(over)} served responses took longer than the promise to start"
    if row.key.startswith("itl"):
        over = [r for r in served.completed if _gap(r) > limit]
        gap = "a token gap" if served.per_token else "a mean token gap"
        return over, _gap, f"{len(over)} served responses had {gap} over the promise"
    failed = [r for r in served.requests if not r.ok]
    note = (
        f"A figure of the whole file ({sum(r.output_tokens for r in served.completed):,} "
        f"output tokens over {served.duration_s:g} s); {len(failed)} requests failed and "
        "served nothing"
    )
    return failed, lambda r: 0.0, note


def inference_misses(
    *, served: ServedResponses, outcome: InferenceOutcome
) -> tuple[InferenceMiss, ...]:
    """One packet per promise the file missed, in the order of the outcome's rows."""
    out = []
    for row in outcome.rows:
        if row.met is not False:
            continue
        behind, worst, note = _picked(served, row)
        listed = sorted(behind, key=worst, reverse=True)[:MAX_LISTED]
        out.append(
            InferenceMiss(
                key=row.key,
                label=row.label,
                unit=row.unit,
                promised=row.promised,
                observed=row.observed,
                beyond=len(behind),
                requests=tuple(_offender(r) for r in listed),
                note=note,
            )
        )
    return tuple(out)
