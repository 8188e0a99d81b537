"""The analysis in a child interpreter with a memory cap: the same answer as in-process, and an
analysis that needs more memory than its cap fails with that reason instead of taking the worker
down. A stored analysis too large for its limit is cut, saying what was cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.failures import FailureInputError, analyse
from engine.failures.fit import fit_analysis
from engine.failures.isolated import AnalysisAborted, Job, analyse_isolated
from engine.failures.synthetic import Scenario, cascade

GiB = 1024**3


def _write(tmp_path: Path, files) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for f in files:
        path = tmp_path / f"{len(out)}.bin"
        path.write_bytes(f.data)
        out.append((str(path), f.name))
    return out


def test_the_child_answers_what_the_analysis_answers_in_process(tmp_path):
    files = cascade(Scenario(ranks=64, culprit=37))
    child = analyse_isolated(
        Job(files=_write(tmp_path, files), rank_map=None, world_size=None, memory_bytes=2 * GiB),
        seconds=120,
    )
    here = analyse(files).to_json()
    assert child["initiating_rank"] == here["initiating_rank"] == 37
    assert child["summary"] == here["summary"]


def test_unusable_input_is_unreadable_not_a_crash(tmp_path):
    (tmp_path / "run.tar.gz").write_bytes(b"\x1f\x8b not really gzip")
    job = Job(
        files=[(str(tmp_path / "run.tar.gz"), "run.tar.gz")],
        rank_map=None,
        world_size=None,
        memory_bytes=2 * GiB,
    )
    with pytest.raises(FailureInputError):
        analyse_isolated(job, seconds=60)


def test_an_analysis_over_its_memory_cap_ends_with_that_reason(tmp_path):
    # A 64 MB log is read whole: far more than a 48 MB cap leaves once Python is loaded.
    log = tmp_path / "rank0.log"
    log.write_bytes(b"[rank0]: step 1 loss 2.5\n" * (64 * 1024**2 // 25))
    job = Job(
        files=[(str(log), "rank0.log")], rank_map=None, world_size=1, memory_bytes=48 * 1024**2
    )
    with pytest.raises(AnalysisAborted, match="memory limit"):
        analyse_isolated(job, seconds=120)


def test_an_analysis_too_large_to_store_is_cut_and_says_what_was_cut():
    doc = {
        "summary": "rank 3 on node-0: nccl_timeout",
        "initiating_rank": 3,
        "missing_ranks": list(range(200_000)),
        "timeline": [{"rank": r, "message": "x" * 40} for r in range(5_000)],
    }
    fitted = fit_analysis(doc, max_bytes=256 * 1024)
    assert len(json.dumps(fitted)) <= 256 * 1024
    assert fitted["summary"] == doc["summary"] and fitted["initiating_rank"] == 3
    cut = fitted["truncated"]["missing_ranks"]
    assert cut["of"] == 200_000 and 0 < cut["kept"] < 200_000
    assert fitted["missing_ranks"] == list(range(cut["kept"]))  # the head is kept
    assert fit_analysis({"summary": "small"}, max_bytes=1024) == {"summary": "small"}
