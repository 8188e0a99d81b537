"""One entry point for served-responses files: detection and parsing, by the same rules as the
burn-in evidence registry (engine.evidence.parsers.registry), kept apart because these files
measure a service in use, not a cluster before acceptance."""

from __future__ import annotations

from collections.abc import Callable

from engine.evidence.parsers.base import decode_text
from engine.inference import request_log, vllm_bench
from engine.inference.model import ServedResponses, ServedResponsesError

MIN_CONFIDENCE = 0.5

_PARSERS: dict[str, tuple[Callable[[str], float], Callable[[str], ServedResponses]]] = {
    vllm_bench.KIND: (vllm_bench.detect, vllm_bench.parse),
    request_log.KIND: (request_log.detect, request_log.parse),
}
KINDS: tuple[str, ...] = tuple(_PARSERS)
LABELS = {
    vllm_bench.KIND: "vLLM serving benchmark (JSON)",
    request_log.KIND: "per-request log (CSV or JSON lines)",
}


def detect_kind(text: str) -> str:
    if not text.strip():
        raise ServedResponsesError("empty file: nothing to read")
    scores = {kind: detect(text) for kind, (detect, _) in _PARSERS.items()}
    kind, best = max(scores.items(), key=lambda item: item[1])
    if best < MIN_CONFIDENCE:
        first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
        raise ServedResponsesError(
            "not a served-responses file: expected vLLM's benchmark result JSON (with ttfts and "
            "itls) or a per-request log whose header names start, first_token, end, "
            f"output_tokens and status; the first line reads {first[:60]!r}",
            line=1,
        )
    return kind


def parse_served(data: str | bytes, *, kind: str | None = None) -> ServedResponses:
    """Parse an upload; ServedResponsesError (with its line where there is one) on bad input."""
    text = decode_text(data, error=ServedResponsesError)
    chosen = kind or detect_kind(text)
    if chosen not in _PARSERS:
        raise ServedResponsesError(f"unknown kind {chosen!r}; expected one of {', '.join(KINDS)}")
    try:
        return _PARSERS[chosen][1](text)
    except RecursionError as exc:
        raise ServedResponsesError("the file is nested too deeply to read", kind=chosen) from exc
