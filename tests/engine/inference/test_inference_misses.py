"""The diagnostic packets of docs/inference-outcomes.md's worked example: each missed promise
with the requests behind it, worst first, and where in the file they are."""

from __future__ import annotations

from engine.inference import parse_served
from engine.inference.misses import inference_misses
from tests.engine.inference.test_inference_outcome import DATA, outcome


def _misses(name: str):
    served = parse_served((DATA / name).read_bytes())
    return {m.key: m for m in inference_misses(served=served, outcome=outcome(name))}


def test_each_missed_vllm_promise_names_its_requests_worst_first() -> None:
    misses = _misses("vllm_bench_serve.json")
    assert list(misses) == ["ttft_p50_ms", "ttft_p95_ms", "itl_p95_ms", "cost_per_million_tokens"]
    slow_start = misses["ttft_p50_ms"]
    assert (slow_start.promised, slow_start.observed, slow_start.beyond) == (120, 150.0, 3)
    assert [(o.where, o.ttft_ms) for o in slow_start.requests] == [
        ("request 3", 400.0), ("request 2", 200.0), ("request 1", 150.0),
    ]  # fmt: skip
    assert [o.where for o in misses["ttft_p95_ms"].requests] == ["request 3"]
    gap = misses["itl_p95_ms"]
    assert [(o.where, o.worst_gap_ms) for o in gap.requests] == [("request 3", 60.0)]
    # A figure of the whole file: the failed request is what it points at.
    cost = misses["cost_per_million_tokens"]
    assert [(o.where, o.ok) for o in cost.requests] == [("request 5", False)]
    assert cost.note.startswith("A figure of the whole file (19 output tokens over 2 s)")


def test_a_log_names_the_lines_of_the_responses_over_the_promise() -> None:
    misses = _misses("request_log.csv")
    assert list(misses) == ["itl_p50_ms"]
    miss = misses["itl_p50_ms"]
    # Mean gaps 30, 50, 40 and 20 ms against a promised 30: req-2 (line 3) and req-3 (line 4).
    assert [(o.where, o.ref, o.worst_gap_ms) for o in miss.requests] == [
        ("line 3", "req-2", 50.0), ("line 4", "req-3", 40.0),
    ]  # fmt: skip
    assert miss.note == "2 served responses had a mean token gap over the promise"


def test_a_file_that_keeps_every_promise_has_no_packet() -> None:
    from engine.inference import Promise

    served = parse_served((DATA / "request_log.csv").read_bytes())
    assert inference_misses(served=served, outcome=outcome("request_log.csv", Promise())) == ()
