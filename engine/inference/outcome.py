"""Served responses against the promised envelope: latency percentiles, throughput, responses
within the latency promise and what each cost (docs/inference-outcomes.md has a worked example).

Percentiles: the median is the middle value (the mean of the two middle ones for an even count);
p95 is the nearest rank, the smallest value that 95 % of the values do not exceed. Only served
responses count; failed requests are counted, never timed. Inter-token latency pools every token
gap of every response, as vLLM's own summary does (a log without per-token times pools each
response's mean gap instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from engine.evidence.parsers.base import median, percentile
from engine.inference.model import ServedRequest, ServedResponses

_CENT_FRACTIONS = Decimal("0.000001")
_CENTS = Decimal("0.01")


@dataclass(frozen=True)
class Promise:
    """The offer's inference envelope; None where the provider promised nothing."""

    concurrency: int | None = None
    ttft_p50_ms: float | None = None
    ttft_p95_ms: float | None = None
    itl_p50_ms: float | None = None
    itl_p95_ms: float | None = None
    throughput_tokens_per_s: float | None = None
    cost_per_million_tokens: Decimal | None = None

    @property
    def has_latency(self) -> bool:
        return self.ttft_p95_ms is not None or self.itl_p95_ms is not None


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    unit: str
    promised: float | Decimal | None
    observed: float | Decimal | None
    better: str  # "lower" or "higher"

    @property
    def met(self) -> bool | None:
        if self.promised is None or self.observed is None:
            return None
        if self.better == "lower":
            return self.observed <= self.promised
        return self.observed >= self.promised


@dataclass(frozen=True)
class InferenceOutcome:
    requests: int
    completed: int
    failed: int
    within_promise: int
    output_tokens: int
    duration_s: float
    concurrency: int | None
    per_token: bool
    ttft_p50_ms: float | None
    ttft_p95_ms: float | None
    itl_p50_ms: float | None
    itl_p95_ms: float | None
    throughput_tokens_per_s: float
    cost_usd: Decimal | None
    cost_per_response: Decimal | None
    cost_per_response_within: Decimal | None
    cost_per_million_tokens: Decimal | None
    rows: tuple[Row, ...]
    notes: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        """Plain JSON: money as strings (exact), latencies as numbers."""

        def plain(value: Any) -> Any:
            return str(value) if isinstance(value, Decimal) else value

        body = {k: plain(v) for k, v in vars(self).items() if k not in ("rows", "notes")}
        body["rows"] = [
            {**{k: plain(v) for k, v in vars(r).items()}, "met": r.met} for r in self.rows
        ]
        body["notes"] = list(self.notes)
        return body


MONEY_FIELDS = ("cost_usd", "cost_per_response", "cost_per_response_within",
                "cost_per_million_tokens")  # fmt: skip


def figures_from_json(body: dict[str, Any]) -> dict[str, Any]:
    """`InferenceOutcome.as_json()` read back for display: money as Decimal again."""

    def money(value: Any) -> Decimal | None:
        return None if value is None else Decimal(str(value))

    out = {**body, **{k: money(body.get(k)) for k in MONEY_FIELDS}}
    out["rows"] = [
        {**row, "promised": money(row["promised"]), "observed": money(row["observed"])}
        if row.get("unit") == "USD"
        else row
        for row in body.get("rows", [])
    ]
    return out


def _within(request: ServedRequest, promise: Promise) -> bool:
    if promise.ttft_p95_ms is not None and (request.ttft_ms or 0) > promise.ttft_p95_ms:
        return False
    gap = request.mean_itl_ms
    return promise.itl_p95_ms is None or gap is None or gap <= promise.itl_p95_ms


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _pair(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    ordered = sorted(values)
    return _ms(median(ordered)), _ms(percentile(ordered, 95))


def _per(cost: Decimal | None, count: int, scale: Decimal = Decimal(1)) -> Decimal | None:
    if cost is None or count <= 0:
        return None
    return cost * scale / count


def _money(value: Decimal | None, step: Decimal) -> Decimal | None:
    return None if value is None else value.quantize(step, rounding=ROUND_HALF_UP)


def _notes(served: ServedResponses, promise: Promise, cost: Decimal | None) -> list[str]:
    notes = []
    if promise.concurrency and served.concurrency and served.concurrency != promise.concurrency:
        notes.append(
            f"Measured at a concurrency of {served.concurrency}; the promise holds at "
            f"{promise.concurrency}, so the figures compare unlike loads."
        )
    if not promise.has_latency:
        notes.append("The offer promises no p95 latency: every served response counts.")
    if not served.per_token:
        notes.append(
            "The log has no per-token times: inter-token latency is each response's mean gap."
        )
    if cost is None:
        notes.append("The reservation has no price or GPU count, so no cost is computed.")
    return notes


def served_outcome(
    *,
    served: ServedResponses,
    promise: Promise,
    price_per_gpu_hour: Decimal | None,
    gpus: Decimal | None,
) -> InferenceOutcome:
    """The figures of one served-responses file. The cost is the reservation's rate for the
    file's span: price × whole-GPU equivalents × duration; a response costs that over the
    responses served, and a response within the promise that over only those."""
    done = served.completed
    ttft_p50, ttft_p95 = _pair([r.ttft_ms for r in done if r.ttft_ms is not None])
    itl_p50, itl_p95 = _pair([gap for r in done for gap in r.itls_ms])
    tokens = sum(r.output_tokens for r in done)
    throughput = round(tokens / served.duration_s, 3)
    within = sum(1 for r in done if _within(r, promise))
    cost = None
    if price_per_gpu_hour is not None and gpus:
        seconds = Decimal(repr(served.duration_s))
        cost = price_per_gpu_hour * gpus * seconds / Decimal(3600)
    per_million = _money(_per(cost, tokens, Decimal(1_000_000)), _CENTS)
    rows = (
        Row("ttft_p50_ms", "Time to first token, p50", "ms",
            promise.ttft_p50_ms, ttft_p50, "lower"),
        Row("ttft_p95_ms", "Time to first token, p95", "ms",
             promise.ttft_p95_ms, ttft_p95, "lower"),
        Row("itl_p50_ms", "Inter-token latency, p50", "ms", promise.itl_p50_ms, itl_p50, "lower"),
        Row("itl_p95_ms", "Inter-token latency, p95", "ms", promise.itl_p95_ms, itl_p95, "lower"),
        Row("throughput_tokens_per_s", "Output throughput", "tokens/s",
            promise.throughput_tokens_per_s, throughput, "higher"),
        Row("cost_per_million_tokens", "Cost per million output tokens", "USD",
            promise.cost_per_million_tokens, per_million, "lower"),
    )  # fmt: skip
    return InferenceOutcome(
        requests=len(served.requests),
        completed=len(done),
        failed=len(served.requests) - len(done),
        within_promise=within,
        output_tokens=tokens,
        duration_s=served.duration_s,
        concurrency=served.concurrency,
        per_token=served.per_token,
        ttft_p50_ms=ttft_p50,
        ttft_p95_ms=ttft_p95,
        itl_p50_ms=itl_p50,
        itl_p95_ms=itl_p95,
        throughput_tokens_per_s=throughput,
        cost_usd=_money(cost, _CENT_FRACTIONS),
        cost_per_response=_money(_per(cost, len(done)), _CENT_FRACTIONS),
        cost_per_response_within=_money(_per(cost, within), _CENT_FRACTIONS),
        cost_per_million_tokens=per_million,
        rows=rows,
        notes=tuple(_notes(served, promise, cost)),
    )
