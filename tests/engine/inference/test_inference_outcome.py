"""The worked example of docs/inference-outcomes.md: every figure computed by hand there."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from engine.inference import Promise, parse_served, served_outcome

DATA = Path(__file__).resolve().parents[2] / "data" / "inference"
PROMISE = Promise(
    concurrency=4,
    ttft_p50_ms=120,
    ttft_p95_ms=300,
    itl_p50_ms=30,
    itl_p95_ms=50,
    throughput_tokens_per_s=8,
    cost_per_million_tokens=Decimal("900.00"),
)


def outcome(name: str, promise: Promise = PROMISE):
    served = parse_served((DATA / name).read_bytes())
    return served_outcome(
        served=served, promise=promise, price_per_gpu_hour=Decimal("4.50"), gpus=Decimal(32)
    )


def test_the_vllm_example_gives_the_hand_computed_percentiles() -> None:
    result = outcome("vllm_bench_serve.json")
    assert (result.requests, result.completed, result.failed) == (6, 5, 1)
    assert (result.ttft_p50_ms, result.ttft_p95_ms) == (150.0, 400.0)
    assert (result.itl_p50_ms, result.itl_p95_ms) == (25.0, 60.0)
    assert (result.output_tokens, result.throughput_tokens_per_s) == (19, 9.5)


def test_the_vllm_example_costs_what_the_doc_says_per_response() -> None:
    result = outcome("vllm_bench_serve.json")
    assert result.cost_usd == Decimal("0.080000")
    assert result.cost_per_response == Decimal("0.016000")
    # One response (TTFT 400 ms, mean gap 53.3 ms) is outside the promised p95s.
    assert result.within_promise == 4
    assert result.cost_per_response_within == Decimal("0.020000")
    assert result.cost_per_million_tokens == Decimal("4210.53")


def test_each_promised_figure_is_met_or_missed() -> None:
    met = {row.key: row.met for row in outcome("vllm_bench_serve.json").rows}
    assert met == {
        "ttft_p50_ms": False,
        "ttft_p95_ms": False,
        "itl_p50_ms": True,
        "itl_p95_ms": False,
        "throughput_tokens_per_s": True,
        "cost_per_million_tokens": False,
    }


def test_the_log_example_notes_its_load_and_its_mean_gaps() -> None:
    result = outcome("request_log.csv")
    assert (result.ttft_p50_ms, result.ttft_p95_ms) == (90.0, 150.0)
    assert (result.itl_p50_ms, result.itl_p95_ms) == (35.0, 50.0)
    assert result.throughput_tokens_per_s == 47.368
    assert (result.within_promise, result.cost_per_response) == (4, Decimal("0.007600"))
    assert result.cost_per_million_tokens == Decimal("844.44")
    assert any("concurrency of 3" in note for note in result.notes)
    assert any("mean gap" in note for note in result.notes)


def test_without_a_latency_promise_every_served_response_counts() -> None:
    result = outcome("vllm_bench_serve.json", Promise())
    assert result.within_promise == result.completed == 5
    assert all(row.met is None for row in result.rows)
    assert any("promises no p95" in note for note in result.notes)


def test_without_a_price_there_is_no_cost() -> None:
    served = parse_served((DATA / "vllm_bench_serve.json").read_bytes())
    result = served_outcome(served=served, promise=PROMISE, price_per_gpu_hour=None, gpus=None)
    assert result.cost_per_response is None and result.cost_per_million_tokens is None
