"""Run the rendered rank-sum fixture for real on CPU with the gloo backend."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

TORCH_MISSING = "torch is not installed (CI installs the CPU build)"


@pytest.fixture
def torch_available(require: Callable[[str], None]) -> None:
    if importlib.util.find_spec("torch") is None:
        require(TORCH_MISSING)


def run_fixture(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / "fixture_allreduce.py"), "--backend", "gloo", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.usefixtures("torch_available")
def test_four_gloo_workers_sum_to_six(unpacked: Path) -> None:
    result = run_fixture(unpacked, "--spawn", "4", "--count", "4096", "--iterations", "3")
    assert result.returncode == 0, result.stderr
    lines = sorted(json_lines(result.stdout), key=lambda r: int(str(r["rank"])))
    assert [r["rank"] for r in lines] == [0, 1, 2, 3]
    fixture = json.loads((unpacked / "fixture.json").read_text())
    for record in lines:
        assert record["pass"] is True
        assert record["min"] == record["max"] == record["expected"] == 6  # 4*3/2
        assert record["world_size"] == 4
        assert record["count"] == 4096
        assert record["dtype"] == fixture["tests"]["allreduce_fixture"]["dtype"]
        assert record["device"] == "cpu"
        assert record["nccl_version"] is None
        assert record["cuda_version"] is None
        assert isinstance(record["elapsed_s"], float)
        assert isinstance(record["host"], str) and record["host"]
        assert str(record["torch_version"])
        for key in ("local_rank", "torch_version"):
            assert key in record


@pytest.mark.usefixtures("torch_available")
def test_a_wrong_sum_fails_every_rank_and_the_exit_status(unpacked: Path) -> None:
    result = run_fixture(
        unpacked, "--spawn", "4", "--count", "64", "--iterations", "2", "--fault-rank", "2"
    )
    assert result.returncode == 1
    lines = json_lines(result.stdout)
    assert len(lines) == 4
    for record in lines:
        assert record["pass"] is False
        assert record["min"] == record["max"] == 7
        assert record["expected"] == 6


@pytest.mark.usefixtures("torch_available")
def test_out_appends_one_line_per_worker(unpacked: Path) -> None:
    out = unpacked / "results" / "fixture-result.jsonl"
    result = run_fixture(unpacked, "--spawn", "2", "--count", "16", "--out", str(out))
    assert result.returncode == 0, result.stderr
    records = json_lines(out.read_text())
    assert sorted(int(str(r["rank"])) for r in records) == [0, 1]
    assert all(r["expected"] == 1 for r in records)


def test_it_needs_a_launcher_environment(unpacked: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(unpacked / "fixture_allreduce.py"), "--backend", "gloo"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode != 0
    assert "torchrun" in result.stderr


@pytest.mark.usefixtures("torch_available")
def test_records_carry_what_the_launcher_exports(
    unpacked: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLUSTERBID_OS_IMAGE", "ubuntu-22.04-hpc-2026.11")
    monkeypatch.setenv("CLUSTERBID_KUBERNETES_VERSION", "v1.30.4")
    monkeypatch.delenv("CLUSTERBID_WORKER_NODE_SPEC", raising=False)
    result = run_fixture(unpacked, "--spawn", "2", "--count", "16", "--iterations", "2")
    assert result.returncode == 0, result.stderr
    for record in json_lines(result.stdout):
        assert record["os_image"] == "ubuntu-22.04-hpc-2026.11"
        assert record["kubernetes_version"] == "v1.30.4"
        assert "worker_node_spec" not in record
