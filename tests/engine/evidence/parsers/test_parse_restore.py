"""A stored parse result reads back as the result the parser built (no second parse)."""

import json
import math
from pathlib import Path

import pytest
from parser_fuzzing import DATA

from engine.evidence.parsers import parse_evidence, to_json
from engine.evidence.parsers.restore import FORMAT, StoredResultError, from_json
from engine.evidence.parsers.step_times import RankSteps, StepTimesResult

VALID = sorted(
    p
    for p in DATA.rglob("*")
    if p.is_file() and not p.name.startswith("broken") and "not_gpus" not in p.name
)


@pytest.mark.parametrize("path", VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_valid_file_reads_back_equal_to_its_parse(path: Path):
    parsed = parse_evidence(path.read_bytes())
    # Through JSON text, as the database keeps it.
    stored = json.loads(json.dumps(to_json(parsed), allow_nan=False))
    assert from_json(stored) == parsed


def test_tuples_nested_runs_and_integer_keys_come_back_typed():
    sample = next(p for p in VALID if p.parent.name == "nccl-tests")
    back = from_json(json.loads(json.dumps(to_json(parse_evidence(sample.read_bytes())))))
    assert isinstance(back.rows, tuple) and isinstance(back.rows[0].size, int)
    assert back.rows[0].out_of_place is None or isinstance(back.rows[0].out_of_place.busbw, float)


def test_a_non_finite_float_written_as_null_reads_back_as_nan():
    rank = RankSteps(
        rank=0, node="n", steps=1, median=math.inf, mean=1.0, p95=1.0, min=1.0, max=1.0, line=2
    )
    result = StepTimesResult(samples=1, ranks=1, per_rank=(rank,), run_median=None)
    back = from_json(json.loads(json.dumps(to_json(result))))
    assert math.isnan(back.per_rank[0].median) and back.run_median is None


@pytest.mark.parametrize(
    "stored",
    [None, [], {"kind": "no-such-kind"}, {"kind": "step-times", "samples": 1}],
    ids=["null", "list", "unknown-kind", "missing-fields"],
)
def test_a_result_that_does_not_fit_is_refused_so_the_caller_parses_again(stored):
    with pytest.raises(StoredResultError):
        from_json(stored)


def test_the_format_names_the_revision_and_the_shape_of_every_result():
    revision, digest = FORMAT.split(":")
    assert revision.isdigit() and len(digest) == 12
