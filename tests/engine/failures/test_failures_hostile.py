"""Hostile evidence: a pickle whose shared references expand astronomically, and world sizes
no job has. Each ends as a refusal in seconds, under a memory cap, never as a wedged worker."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.failures import (
    MAX_WORLD_SIZE,
    FailureInputError,
    analyse,
    parse_rank_map,
)
from engine.failures.synthetic import flight_recorder

ROOT = Path(__file__).resolve().parents[3]


def memo_bomb(depth: int = 30) -> list[Any]:
    """`x = [x, x]` repeated: a few hundred bytes pickled, 2^depth lists written out."""
    x: list[Any] = []
    for _ in range(depth):
        x = [x, x]
    return x


def _bomb_dump(**where: Any) -> bytes:
    entry = {
        "collective_seq_id": 1,
        "profiling_name": "nccl:all_reduce",
        "input_sizes": [[4]],
        "input_dtypes": ["Float"],
        "output_sizes": [[4]],
        "state": "completed",
        "time_created_ns": 1,
        "process_group": ("0", "default_pg"),
    }
    cfg: dict[str, Any] = {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}}
    if "entry" in where:
        entry.update(where["entry"])
    if "pg_config" in where:
        cfg = where["pg_config"]
    dump = {"version": "2.5", "pg_config": cfg, "pg_status": {}, "entries": [entry]}
    return pickle.dumps(dump, protocol=4)


# Run in a child with 1 GiB of address space and a time limit: on a build that expands the
# bomb, the child dies of MemoryError or the timeout instead of taking the test machine down.
_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from engine.failures import SourceFile, analyse
from engine.failures.synthetic import flight_recorder
files = flight_recorder(ranks=4, entries=10)
files[1] = SourceFile(files[1].name, sys.stdin.buffer.read())
print(json.dumps(analyse(files, world_size=4).to_json()))
"""


def _analyse_capped(bomb: bytes) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], input=bomb, cwd=ROOT, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "where",
    [
        {"entry": {"input_sizes": memo_bomb()}},
        {"entry": {"input_dtypes": memo_bomb()}},
        {"entry": {"profiling_name": memo_bomb()}},
        {"entry": {"output_sizes": [memo_bomb(8)[0]] * 1000}},
        # With every field the column-wise path reads, so the bomb reaches that path too.
        {"entry": {"input_sizes": memo_bomb(), "is_p2p": False}},
    ],
    ids=["sizes", "dtypes", "name", "wide", "bulk-sizes"],
)
def test_a_memo_bomb_in_an_entry_makes_that_dump_unusable_not_the_worker_stuck(where):
    bomb = _bomb_dump(**where)
    assert len(bomb) < 20_000  # small on disk: the danger is what it expands to
    result = _analyse_capped(bomb)
    assert result["incomplete_dumps"] == [1]
    assert any("rank 1 is incomplete" in m and "not plain data" in m for m in result["missing"])
    assert len(json.dumps(result)) < 200_000


@pytest.mark.parametrize(
    "entry",
    [{"state": memo_bomb()}, {"process_group": ("0", memo_bomb())}, {"is_p2p": memo_bomb()}],
    ids=["state", "group-desc", "p2p"],
)
def test_a_memo_bomb_in_a_field_that_is_never_written_out_is_harmless(entry):
    """Fields only compared, never keyed or printed: the dump is read, nothing expands."""
    result = _analyse_capped(_bomb_dump(entry={"is_p2p": False, **entry}))
    assert len(json.dumps(result)) < 200_000


def test_a_memo_bomb_in_the_group_table_is_ignored():
    result = _analyse_capped(
        _bomb_dump(pg_config={"0": {"name": "0", "desc": "default_pg", "ranks": memo_bomb()}})
    )
    assert len(json.dumps(result)) < 200_000
    assert result["incomplete_dumps"] == []


def test_a_plain_dump_still_compares_after_the_checks():
    files = flight_recorder(ranks=8, entries=20, culprit=5)
    assert analyse(files, world_size=8).first_failure.rank == 5


@pytest.mark.parametrize("size", [0, MAX_WORLD_SIZE + 1, 2_147_483_647])
def test_the_analysis_refuses_a_world_size_outside_its_range(size):
    with pytest.raises(FailureInputError, match=f"1 to {MAX_WORLD_SIZE:,} ranks"):
        analyse(flight_recorder(ranks=2, entries=5), world_size=size)


def test_a_rank_map_that_implies_millions_of_ranks_is_refused_not_expanded():
    rmap = parse_rank_map(b"rank,node\n0,node-0\n2000000,node-9\n", name="ranks.csv")
    with pytest.raises(FailureInputError, match="2,000,001 ranks"):
        analyse(flight_recorder(ranks=2, entries=5), rank_map=rmap)


def test_the_command_line_refuses_a_huge_world_size_in_one_line(tmp_path):
    (tmp_path / "rank0.log").write_text("hello\n")
    done = subprocess.run(
        [sys.executable, "manage.py", "analyze_failure", str(tmp_path),
         "--world-size", "2147483647"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"1 to {MAX_WORLD_SIZE:,} ranks" in done.stderr and "Traceback" not in done.stderr
