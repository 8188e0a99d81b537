"""vLLM's serving benchmark result (`benchmark_serving.py --save-result`, or
`vllm bench serve --save-result --save-detailed`): one JSON object.

Beside the summary (`duration`, `completed`, `mean_ttft_ms`, `p99_itl_ms`...) it holds one entry
per request in parallel lists: `input_lens`, `output_lens`, `ttfts` (seconds), `itls` (a list of
token gaps per request, seconds) and `errors` ("" for a success). A failed request has a TTFT of
0, no gaps and no output. Releases since the move to `vllm bench serve` write the lists only with
`--save-detailed`; without them there is nothing per request to compute percentiles from.
"""

from __future__ import annotations

import json
from typing import Any

from engine.formatting import is_finite_number
from engine.inference.model import ServedRequest, ServedResponses, ServedResponsesError

KIND = "vllm_bench"
_LISTS = ("ttfts", "itls", "output_lens")


def detect(text: str) -> float:
    head = text.lstrip()[:1]
    if head != "{":
        return 0.0
    sample = text[:200_000]
    if '"ttfts"' in sample and '"itls"' in sample:
        return 0.95
    return 0.6 if '"mean_ttft_ms"' in sample else 0.0


def _fail(message: str, line: int | None = None) -> ServedResponsesError:
    return ServedResponsesError(message, line=line, kind=KIND)


def _seconds(value: Any, where: str) -> float:
    if not is_finite_number(value):
        raise _fail(f"{where} is {value!r}; expected a number of seconds")
    if value < 0:
        raise _fail(f"{where} is {value}; a time cannot be negative")
    return float(value) * 1000.0


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(f"{where} is {value!r}; expected a whole number of tokens")
    return value


def _load(text: str) -> dict[str, Any]:
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except RecursionError:
        raise _fail("not valid JSON: nested too deeply") from None
    if not isinstance(body, dict):
        raise _fail("expected one JSON object with the benchmark's result", 1)
    return body


def _lists(body: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any], int]:
    missing = [name for name in _LISTS if name not in body]
    if missing:
        hint = (
            " The file has only the summary: run `vllm bench serve` with --save-detailed."
            if "mean_ttft_ms" in body
            else ""
        )
        raise _fail(f"no per-request field {', '.join(missing)}.{hint}")
    lists = [body[name] for name in _LISTS]
    for name, value in zip(_LISTS, lists, strict=True):
        if not isinstance(value, list):
            raise _fail(f"field {name} is {type(value).__name__}; expected a list per request")
    n = len(lists[0])
    for name, value in zip(_LISTS, lists, strict=True):
        if len(value) != n:
            raise _fail(f"field {name} has {len(value)} entries; ttfts has {n}")
    if n == 0:
        raise _fail("the benchmark recorded no requests")
    return lists[0], lists[1], lists[2], n


def _optional_list(body: dict[str, Any], name: str, n: int) -> list[Any] | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != n:
        raise _fail(f"field {name} must list one entry per request ({n})")
    return value


def _request(i: int, ttft: Any, itl: Any, out: Any, inp: Any, err: Any) -> ServedRequest:
    error = err if isinstance(err, str) else ("" if err is None else str(err))
    tokens = _count(out, f"output_lens[{i}]")
    if not isinstance(itl, list):
        raise _fail(f"itls[{i}] is {type(itl).__name__}; expected the token gaps in seconds")
    gaps = tuple(_seconds(g, f"itls[{i}][{j}]") for j, g in enumerate(itl))
    first = _seconds(ttft, f"ttfts[{i}]")
    # Without an `errors` list, a failure shows as nothing produced.
    ok = not error if err is not None else not (first == 0 and tokens == 0)
    return ServedRequest(
        ref=f"request {i}",
        ok=ok,
        ttft_ms=first if ok else None,
        itls_ms=gaps if ok else (),
        output_tokens=tokens if ok else 0,
        input_tokens=_count(inp, f"input_lens[{i}]") if inp is not None else None,
        error=error.strip()[:300],
    )


def parse(text: str) -> ServedResponses:
    body = _load(text)
    ttfts, itls, outs, n = _lists(body)
    inputs = _optional_list(body, "input_lens", n) or [None] * n
    errors = _optional_list(body, "errors", n) or [None] * n
    requests = tuple(
        _request(i, *row)
        for i, row in enumerate(zip(ttfts, itls, outs, inputs, errors, strict=True))
    )
    duration = body.get("duration")
    if isinstance(duration, bool) or not isinstance(duration, int | float) or duration <= 0:
        raise _fail(f"field duration is {duration!r}; expected the run's seconds (above 0)")
    concurrency = body.get("max_concurrency")
    if not (isinstance(concurrency, int) and not isinstance(concurrency, bool) and concurrency > 0):
        concurrency = None
    model = body.get("model_id")
    return ServedResponses(
        kind=KIND,
        requests=requests,
        duration_s=float(duration),
        concurrency=concurrency,
        per_token=True,
        model=model[:200] if isinstance(model, str) else "",
    )
