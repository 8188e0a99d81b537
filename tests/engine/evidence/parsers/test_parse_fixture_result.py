"""The fixture's JSON lines."""

import pytest
from parser_fuzzing import fuzz_tests

from engine.evidence.parsers import fixture_result
from engine.evidence.parsers.base import FixtureResultError

D = "fixture-result/"


def test_sixteen_ranks(evidence):
    r = fixture_result.parse(evidence(D + "fixture_16ranks_pass.jsonl"))
    assert len(r.records) == 16 and r.world_sizes == (16,) and r.hosts == ("gpu-a01", "gpu-a02")
    assert r.records[3].expected == 120 and r.records[3].passed and r.records[3].line == 4


def test_srun_labels_are_stripped(evidence):
    r = fixture_result.parse(evidence(D + "fixture_srun_labels_rank7_wrong.jsonl"))
    assert not r.records[7].passed and r.records[7].min == 112


def test_missing_keys_name_the_line(evidence):
    with pytest.raises(FixtureResultError) as exc:
        fixture_result.parse(evidence(D + "broken_missing_key.jsonl"))
    assert exc.value.line == 2 and "host" in str(exc.value)


@pytest.mark.parametrize("value", ["9" * 400, "9" * 5000])  # past float() and int()
def test_a_number_too_long_to_read_names_its_line(evidence, value):
    lines = evidence(D + "fixture_16ranks_pass.jsonl").decode().split("\n")
    lines[1] = lines[1].replace('"elapsed_s": ', f'"elapsed_s": {value}, "was": ', 1)
    with pytest.raises(FixtureResultError) as exc:
        fixture_result.parse("\n".join(lines))
    assert exc.value.line == 2


(
    test_fuzz_arbitrary_text,
    test_fuzz_truncated_valid_file,
    test_fuzz_random_bytes,
    test_fuzz_spliced_bytes,
    test_fuzz_bad_number_in_a_valid_file,
) = fuzz_tests("fixture-result", fixture_result.parse, FixtureResultError)
