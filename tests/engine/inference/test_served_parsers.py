"""Served-responses files as vLLM's benchmark and a request log write them, and the errors that
name the field or line when they cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.inference import ServedResponsesError, detect_kind, parse_served

DATA = Path(__file__).resolve().parents[2] / "data" / "inference"


def read(name: str) -> bytes:
    return (DATA / name).read_bytes()


def test_the_vllm_result_gives_each_request_in_milliseconds() -> None:
    served = parse_served(read("vllm_bench_serve.json"))
    assert served.kind == "vllm_bench" and served.per_token
    assert (served.duration_s, served.concurrency) == (2.0, 4)
    assert served.model == "meta-llama/Llama-3.1-8B-Instruct"
    first = served.requests[0]
    assert (first.ttft_ms, first.itls_ms, first.output_tokens) == (100.0, (20.0, 20.0, 30.0), 4)
    assert first.input_tokens == 512


def test_a_failed_vllm_request_is_counted_not_timed() -> None:
    served = parse_served(read("vllm_bench_serve.json"))
    failed = served.requests[5]
    assert not failed.ok and failed.ttft_ms is None and failed.error.startswith("Bad Request")
    assert len(served.completed) == 5


def test_a_summary_without_per_request_lists_says_how_to_get_them() -> None:
    with pytest.raises(ServedResponsesError) as exc:
        parse_served(read("vllm_bench_summary_only.json"))
    assert "--save-detailed" in str(exc.value) and "ttfts" in str(exc.value)


def test_lists_of_unequal_length_name_the_field() -> None:
    body = json.loads(read("vllm_bench_serve.json"))
    body["itls"] = body["itls"][:-1]
    with pytest.raises(ServedResponsesError, match="field itls has 5 entries; ttfts has 6"):
        parse_served(json.dumps(body))


def test_a_bad_value_names_its_request() -> None:
    body = json.loads(read("vllm_bench_serve.json"))
    body["itls"][2][1] = "slow"
    with pytest.raises(ServedResponsesError, match=r"itls\[2\]\[1\] is 'slow'"):
        parse_served(json.dumps(body))


def test_a_time_too_long_for_a_float_names_its_request() -> None:
    body = json.loads(read("vllm_bench_serve.json"))
    body["ttfts"][0] = 1234.5  # a marker: json.dumps cannot write a 400-digit integer itself
    text = json.dumps(body).replace("1234.5", "9" * 400, 1)
    with pytest.raises(ServedResponsesError, match=r"ttfts\[0\] is 9+; expected a number"):
        parse_served(text)


def test_broken_json_names_its_line() -> None:
    text = read("vllm_bench_serve.json").decode().replace('"duration": 2.0,', '"duration": 2.0')
    with pytest.raises(ServedResponsesError) as exc:
        parse_served(text)
    assert exc.value.line == 11


@pytest.mark.parametrize("name", ["request_log.csv", "request_log.jsonl"])
def test_a_request_log_reads_times_as_iso_or_epoch_seconds(name: str) -> None:
    served = parse_served(read(name))
    assert served.kind == "request_log" and not served.per_token
    assert (served.duration_s, served.concurrency) == (0.76, 3)
    assert [r.ttft_ms for r in served.completed] == [80.0, 150.0, 100.0, 60.0]
    assert [r.itls_ms for r in served.completed] == [(30.0,), (50.0,), (40.0,), (20.0,)]
    failed = served.requests[4]
    assert (failed.ref, failed.ok, failed.error) == ("req-5", False, "503")


def test_a_log_row_that_ends_before_it_starts_names_its_line() -> None:
    text = (
        read("request_log.csv")
        .decode()
        .replace("req-3,2026-11-30T10:00:00.200Z", "req-3,2026-11-30T10:00:09.200Z")
    )
    with pytest.raises(ServedResponsesError) as exc:
        parse_served(text)
    assert exc.value.line == 4 and "end is before start" in str(exc.value)


def test_a_log_time_that_is_no_time_names_the_column_and_line() -> None:
    text = read("request_log.csv").decode().replace("10:00:00.250Z", "soon")
    with pytest.raises(ServedResponsesError) as exc:
        parse_served(text)
    assert exc.value.line == 3 and "first_token is '2026-11-30Tsoon'" in str(exc.value)


def test_a_file_of_another_kind_is_refused_with_its_first_line() -> None:
    with pytest.raises(ServedResponsesError, match="the first line reads 'hello'"):
        detect_kind("hello\nworld\n")


def test_binary_bytes_are_refused() -> None:
    with pytest.raises(ServedResponsesError, match="binary file"):
        parse_served(b"\x00\x01\x02")
