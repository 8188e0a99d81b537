"""What every served-responses parser returns: one row per request, in milliseconds."""

from __future__ import annotations

from dataclasses import dataclass

from engine.evidence.parsers.base import ParseError


class ServedResponsesError(ParseError):
    """A served-responses file (benchmark result or request log) that cannot be read."""


@dataclass(frozen=True)
class ServedRequest:
    """One request as the client saw it. `itls_ms` are the gaps between streamed tokens; a log
    without per-token times gives the response's mean gap once (`ServedResponses.per_token`)."""

    ref: str
    ok: bool
    ttft_ms: float | None
    itls_ms: tuple[float, ...]
    output_tokens: int
    input_tokens: int | None = None
    error: str = ""
    line: int | None = None  # the request's line in a log; None in a benchmark's arrays

    @property
    def mean_itl_ms(self) -> float | None:
        return sum(self.itls_ms) / len(self.itls_ms) if self.itls_ms else None


@dataclass(frozen=True)
class ServedResponses:
    kind: str
    requests: tuple[ServedRequest, ...]
    duration_s: float
    # The benchmark's concurrency limit, or the most requests in flight at once in a log.
    concurrency: int | None
    # True when `itls_ms` holds every token gap; False when it is each response's mean gap.
    per_token: bool
    model: str = ""

    @property
    def completed(self) -> tuple[ServedRequest, ...]:
        return tuple(r for r in self.requests if r.ok)
