"""The bundle's GPU monitor: nvidia-smi dmon on every node through the workload, kept when the
workload fails, uploaded with its node, and never the reason a run fails."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from acceptance.bundle import build_bundle
from engine.evidence.checks.gpu_monitor import lost_gpus
from engine.evidence.parsers.nvidia_smi_dmon import DmonResult
from engine.evidence.parsers.registry import parse_evidence
from tests.acceptance.bundle.conftest import three_node_spec
from tests.acceptance.bundle.fake_tools import alive, dmon_calls, fake_bin, path_with
from tests.acceptance.bundle.test_bundle_scripts import run

NODES = ("node-0", "node-1", "node-2")


def unpack(spec: dict[str, Any], into: Path) -> Path:
    data, _ = build_bundle(spec)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(into, filter="data")
    (root,) = [p for p in into.iterdir() if p.is_dir()]
    return root


def dmon(path: Path) -> DmonResult:
    parsed = parse_evidence(path.read_bytes())
    assert isinstance(parsed, DmonResult), type(parsed)
    return parsed


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """fixture.sbatch run on three fake nodes whose workload fails, GPU 6 of node-1 lost."""
    base = tmp_path_factory.mktemp("failed-run")
    root = unpack(three_node_spec(), base / "bundle")
    fake = fake_bin(base / "bin")
    calls = base / "calls.txt"
    env = {
        "PATH": path_with(fake),
        "SLURM_SUBMIT_DIR": str(root),
        "SLURM_JOB_NODELIST": "node-[0-2]",
        "FAKE_CALLS": str(calls),
        "FAKE_DMON_LOST": "node-1:6",
    }
    result = run(["bash", "fixture.sbatch"], root, **env)
    return {"root": root, "result": result, "calls": calls, "fake": fake}


def test_the_sbatch_watches_the_gpus_through_the_workload_only(tmp_path: Path) -> None:
    sbatch = (unpack(three_node_spec(), tmp_path) / "fixture.sbatch").read_text()
    start = sbatch.index('gpu_monitor.sh" --all-nodes < /dev/null &')
    assert sbatch.index("--counters-before") < start < sbatch.index('"${FIXTURE_CMD[@]}"')
    stop = sbatch.index("\nstop_monitor\n")
    assert (
        sbatch.index("run_nccl_tests.sh")
        < stop
        < sbatch.index('collect_evidence.sh" --all-nodes ||')
    )
    assert "trap stop_monitor EXIT" in sbatch


def test_a_failed_workload_still_leaves_every_nodes_capture(failed_run: dict[str, Any]) -> None:
    result, root = failed_run["result"], failed_run["root"]
    assert result.returncode == 1, result.stderr  # the workload's failure, nothing else
    assert "finished with status 1" in result.stderr
    for node in NODES:
        assert f"gpu_monitor: {node}: stopped" in result.stderr
        folder = root / "evidence" / node
        for name, gpus in (("gpu0-3", (0, 1, 2, 3)), ("gpu4-7", (4, 5, 6, 7))):
            parsed = dmon(folder / f"nvidia-smi-dmon-{name}-part1.txt")
            assert parsed.gpus == gpus
            assert parsed.stamps == ("date", "time")
            assert {"gtemp", "dbecc", "pci"} <= set(parsed.columns)
            assert parsed.origin is not None and parsed.origin.node == node
    # Every dmon was stopped with the workload, none left running on a node.
    calls = dmon_calls(failed_run["calls"])
    assert len(calls) == 6
    for pid, _node, args in calls:
        assert "-s pucet -o DT -d 5 -c 8640" in args
        assert not alive(pid), args


def test_a_gpu_lost_mid_run_is_in_its_nodes_capture(failed_run: dict[str, Any]) -> None:
    folder = failed_run["root"] / "evidence"
    (lost,) = lost_gpus(dmon(folder / "node-1" / "nvidia-smi-dmon-gpu4-7-part1.txt"))
    assert lost.gpu == 6 and lost.readings_before == 1
    assert lost_gpus(dmon(folder / "node-0" / "nvidia-smi-dmon-gpu4-7-part1.txt")) == []


def test_the_upload_sends_each_capture_with_its_node_and_kind(
    failed_run: dict[str, Any], tmp_path: Path
) -> None:
    uploads = tmp_path / "uploads.txt"
    result = run(
        ["bash", "upload_evidence.sh", "17"],
        failed_run["root"],
        PATH=path_with(failed_run["fake"]),
        CLUSTERBID_URL="https://clusterbid.example",
        CLUSTERBID_TOKEN="t0k3n",
        FAKE_UPLOADS=str(uploads),
    )
    assert result.returncode == 0, result.stderr
    sent = uploads.read_text().splitlines()
    for node in NODES:
        for name in ("gpu0-3", "gpu4-7"):
            path = f"evidence/{node}/nvidia-smi-dmon-{name}-part1.txt"
            assert f"file=@{path} node={node} kind=nvidia-smi-dmon " in sent
    # Other files keep being recognised by their content, and nothing of the monitor's own.
    assert "file=@evidence/node-0/nvidia-smi-topo.txt node=node-0 " in sent
    assert not [line for line in sent if ".gpu-monitor" in line]


def test_without_nvidia_smi_the_monitor_says_so_and_the_run_goes_on(
    unpacked: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"  # a PATH without nvidia-smi, even on a GPU machine
    empty.mkdir()
    for tool in ("bash", "dirname", "hostname"):
        found = shutil.which(tool)
        if found:
            (empty / tool).symlink_to(found)
    result = run(["bash", "gpu_monitor.sh"], unpacked, NODE_NAME="node-a", PATH=str(empty))
    assert result.returncode == 0
    assert "node-a: nvidia-smi not found: no GPU monitor capture; the workload goes on" in (
        result.stderr
    )
    assert not (unpacked / "evidence" / "node-a").exists()


def test_a_fixture_that_requires_the_capture_says_it_will_be_missing(tmp_path: Path) -> None:
    spec = three_node_spec()
    spec["required_evidence"] = [*spec["required_evidence"], "nvidia-smi-dmon"]
    root = unpack(spec, tmp_path / "bundle")
    assert "GPU_MONITOR_REQUIRED=1" in (root / "fixture.env").read_text()
    assert "this fixture requires the capture" in (root / "README.md").read_text()
    fake = fake_bin(tmp_path / "bin", "nvidia-smi")
    result = run(
        ["bash", "gpu_monitor.sh"], root, NODE_NAME="node-a", PATH=path_with(fake), FAKE_GPUS="0"
    )
    assert result.returncode == 0
    assert "nvidia-smi lists no GPU" in result.stderr
    assert "The fixture requires one (nvidia-smi-dmon)" in result.stderr
    assert "burn-in will show it missing for this node" in result.stderr


def test_a_default_fixture_does_not_require_the_capture(unpacked: Path) -> None:
    assert "GPU_MONITOR_REQUIRED=0" in (unpacked / "fixture.env").read_text()
    readme = (unpacked / "README.md").read_text()
    assert "`gpu_monitor.sh`" in readme and "requires the capture" not in readme
    assert "./gpu_monitor.sh --start" in readme and "./gpu_monitor.sh --stop" in readme


def test_a_long_capture_is_cut_into_parts_and_stops_at_the_limit(
    unpacked: Path, tmp_path: Path
) -> None:
    """GIVEN a dmon that ends each part as `-c 8640` does, THEN each part is its own parsable
    file and the monitor stops after 14 parts (7 days at 5 s), saying so."""
    fake = fake_bin(tmp_path / "bin", "nvidia-smi")
    result = run(
        ["bash", "gpu_monitor.sh"],
        unpacked,
        NODE_NAME="node-a",
        PATH=path_with(fake),
        FAKE_GPUS="2",
        FAKE_DMON_END="exit",
    )
    assert result.returncode == 0, result.stderr
    parts = sorted((unpacked / "evidence" / "node-a").iterdir())
    assert [p.name for p in parts] == sorted(
        f"nvidia-smi-dmon-gpu0-1-part{n}.txt" for n in range(1, 15)
    )
    for part in parts:
        assert len(dmon(part).samples) == 4
    assert "GPUs 0,1: 14 parts of 8640 samples, the most one run keeps" in result.stderr


def test_a_dmon_that_refuses_to_start_is_kept_and_not_retried(
    unpacked: Path, tmp_path: Path
) -> None:
    fake = fake_bin(tmp_path / "bin", "nvidia-smi")
    calls = tmp_path / "calls.txt"
    result = run(
        ["bash", "gpu_monitor.sh"],
        unpacked,
        NODE_NAME="node-a",
        PATH=path_with(fake),
        FAKE_GPUS="4",
        FAKE_DMON_END="fail",
        FAKE_CALLS=str(calls),
    )
    assert result.returncode == 0
    assert "nvidia-smi dmon for GPUs 0,1,2,3 stopped with exit status 6; not restarted" in (
        result.stderr
    )
    assert len(dmon_calls(calls)) == 1
    kept = (unpacked / "evidence" / "node-a" / "nvidia-smi-dmon-gpu0-3-part1.txt").read_text()
    assert "Not supported on the device(s)" in kept


def test_start_and_stop_by_hand_keep_whole_rows(unpacked: Path, tmp_path: Path) -> None:
    """GIVEN --start on a node and dmon stopped mid-row, WHEN --stop runs, THEN the capture ends
    on a whole row, parses, and no dmon is left running. A narrow terminal (COLUMNS) cuts what
    ps prints of a long command line before the script's name: --stop must still find it."""
    fake = fake_bin(tmp_path / "bin", "nvidia-smi")
    calls = tmp_path / "calls.txt"
    env = {
        "NODE_NAME": "node-a",
        "PATH": path_with(fake),
        "FAKE_GPUS": "1",
        "FAKE_DMON_END": "partial",
        "FAKE_CALLS": str(calls),
        "COLUMNS": "40",
    }
    started = run(["bash", "gpu_monitor.sh", "--start"], unpacked, **env)
    assert started.returncode == 0, started.stderr
    assert "started in the background" in started.stderr
    capture = unpacked / "evidence" / "node-a" / "nvidia-smi-dmon-gpu0-part1.txt"
    deadline = time.monotonic() + 20
    while not (capture.exists() and capture.read_text().endswith("   63")):
        assert time.monotonic() < deadline, "dmon wrote no half row"
        time.sleep(0.1)
    again = run(["bash", "gpu_monitor.sh", "--start"], unpacked, **env)
    assert "already running" in again.stderr
    stopped = run(["bash", "gpu_monitor.sh", "--stop"], unpacked, **env)
    assert stopped.returncode == 0, stopped.stderr
    assert "node-a: stopped; the capture is in evidence/node-a" in stopped.stderr
    text = capture.read_text()
    assert text.endswith("\n") and "   63" not in text.splitlines()[-1]
    assert len(dmon(capture).samples) == 2
    ((pid, _, _),) = dmon_calls(calls)
    assert not alive(pid)
    assert not (unpacked / "evidence" / ".gpu-monitor" / "node-a.pid").exists()
    nothing = run(["bash", "gpu_monitor.sh", "--stop"], unpacked, **env)
    assert nothing.returncode == 0 and "no monitor was started on this node" in nothing.stderr


def test_unknown_monitor_options_are_refused(unpacked: Path) -> None:
    result = run(["bash", "gpu_monitor.sh", "--pause"], unpacked)
    assert result.returncode == 2 and "unknown option: --pause" in result.stderr
    both = run(["bash", "gpu_monitor.sh", "--all-nodes", "--start"], unpacked)
    assert both.returncode == 2 and "--all-nodes runs in the foreground" in both.stderr


def test_the_help_names_the_files_and_the_limits(unpacked: Path) -> None:
    result = subprocess.run(
        ["bash", "gpu_monitor.sh", "--help"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0
    assert "nvidia-smi-dmon-gpu<first>-<last>-part<N>.txt" in result.stdout
    assert "never fails the run" in result.stdout and "set -euo" not in result.stdout
