"""Per-rank step-time CSV."""

import time

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import step_times
from engine.evidence.parsers.base import StepTimesError

D = "step-times/"


def test_it_summarises_per_rank(evidence):
    r = step_times.parse(evidence(D + "steps_16ranks_even.csv"))
    assert (r.samples, r.ranks) == (320, 16) and r.per_rank[9].node == "gpu-a02"
    assert r.per_rank[0].steps == 20 and 1.18 < r.per_rank[0].median < 1.22
    assert r.per_rank[0].p95 >= r.per_rank[0].median and r.run_median is not None


def test_any_column_order_and_a_timestamp(evidence):
    r = step_times.parse(evidence(D + "steps_16ranks_reordered_timestamp_rank11_slow.csv"))
    assert r.has_timestamp and r.per_rank[11].median > 1.3


@pytest.mark.parametrize(
    ("name", "line"), [("broken_bad_seconds.csv", 3), ("broken_missing_column.csv", 1)]
)
def test_errors_name_the_line(evidence, name, line):
    with pytest.raises(StepTimesError) as exc:
        step_times.parse(evidence(D + name))
    assert exc.value.line == line


def test_4096_ranks_parse_fast():
    lines = ["rank,node,step,seconds"]
    lines += [
        f"{r},n{r // 8:04d},{s},{1.0 + (r % 7) / 1000:.4f}" for s in range(20) for r in range(4096)
    ]
    start = time.perf_counter()
    r = step_times.parse("\n".join(lines))
    assert r.ranks == 4096 and r.samples == 81920
    assert time.perf_counter() - start < 5.0


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("step-times", step_times.parse, StepTimesError)


def test_duration_from_timestamps_or_the_step_sum():
    stamped = "rank,node,step,seconds,timestamp\n0,a,0,1.0,2026-11-04T10:00:00Z\n"
    stamped += "0,a,1,1.0,2026-11-04T12:00:00+00:00\n"
    r = step_times.parse(stamped)
    assert (r.duration_s, r.duration_source) == (7200.0, "timestamps")
    r = step_times.parse("rank,node,step,seconds\n0,a,0,1.5\n0,a,1,2.5\n1,a,0,1.0\n")
    assert (r.duration_s, r.duration_source) == (4.0, "step sum") and r.per_rank[0].total == 4.0


@pytest.mark.parametrize(
    ("cell", "words"), [("nan", "not a time"), ("10:00", "ISO 8601"), ("2026-11-04T10:00", "zone")]
)
def test_a_bad_timestamp_names_its_line(cell, words):
    with pytest.raises(StepTimesError, match=words) as exc:
        step_times.parse(
            f"rank,node,step,seconds,timestamp\n0,a,0,1.0,1764000000\n0,a,1,1.0,{cell}\n"
        )
    assert exc.value.line == 3
