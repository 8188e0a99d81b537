"""The bundle's scripts: shellcheck-clean, valid bash and YAML, and they do what they say."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from acceptance.bundle.build import STATIC_FILES
from engine.evidence.parsers.header import read_header

SHELL_FILES = (
    "run_nccl_tests.sh",
    "collect_evidence.sh",
    "gpu_monitor.sh",
    "upload_evidence.sh",
    "fixture.sbatch",
)
SOURCES = Path(__file__).resolve().parents[3] / "acceptance" / "bundle" / "files"


def run(cmd: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_shellcheck_passes_on_the_rendered_scripts(
    unpacked: Path, require: Callable[[str], None]
) -> None:
    if shutil.which("shellcheck") is None:
        require("shellcheck is not installed (apt-get install -y shellcheck)")
    result = run(["shellcheck", "-x", "--severity=style", *SHELL_FILES, "fixture.env"], unpacked)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_passes_on_the_sources(require: Callable[[str], None]) -> None:
    if shutil.which("shellcheck") is None:
        require("shellcheck is not installed (apt-get install -y shellcheck)")
    # The sources read fixture.env, which only exists once rendered: SC1091 is expected here.
    result = run(["shellcheck", "--exclude=SC1091", *STATIC_FILES, "fixture.sbatch"], SOURCES)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", SHELL_FILES)
def test_scripts_parse_under_bash_n(unpacked: Path, name: str) -> None:
    result = run(["bash", "-n", name], unpacked)
    assert result.returncode == 0, result.stderr
    assert "set -euo pipefail" in (unpacked / name).read_text()


def test_the_kubernetes_manifest_parses(unpacked: Path, spec: dict[str, Any]) -> None:
    docs = list(yaml.safe_load_all((unpacked / "fixture-job.yaml").read_text()))
    kinds = ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Service", "ConfigMap", "Job"]
    assert [d["kind"] for d in docs] == kinds
    service, config, job = docs[3:]
    assert service["spec"]["clusterIP"] == "None"
    assert config["data"]["fixture_allreduce.py"] == (unpacked / "fixture_allreduce.py").read_text()
    assert job["spec"]["completionMode"] == "Indexed"
    assert job["spec"]["completions"] == spec["allocation"]["nodes"]
    pod = job["spec"]["template"]["spec"]
    assert pod["subdomain"] == service["metadata"]["name"]
    container = pod["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 8
    assert "--nproc-per-node=8" in container["args"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["NCCL_DEBUG"] == "INFO"


def test_nccl_runs_cover_every_collective_and_node_pair(unpacked: Path) -> None:
    result = run(
        ["bash", "run_nccl_tests.sh", "--dry-run"],
        unpacked,
        HOSTS="node-a,node-b,node-c",
        LAUNCHER="mpirun",
        NCCL_TESTS_BIN="/opt/nccl-tests/build",
    )
    assert result.returncode == 0, result.stderr
    logs = sorted(p.name for p in (unpacked / "logs").glob("nccl_*.log"))
    expected = ["nccl_all_reduce.log", "nccl_alltoall.log"]
    for pair in ("node-a+node-b", "node-a+node-c", "node-b+node-c"):
        expected += [f"nccl_all_reduce_{pair}.log", f"nccl_alltoall_{pair}.log"]
    assert logs == sorted(expected)
    full = (unpacked / "logs" / "nccl_all_reduce.log").read_text()
    assert full.startswith("mpirun -np 24 -N 8 ")
    for flag in (
        "-b 8388608 ",
        "-e 8589934592",
        "-f 2",
        "-g 1",
        "-c 1",
        "-n 20",
        "-w 5",
        "-d float",
    ):
        assert flag in full
    pair = (unpacked / "logs" / "nccl_alltoall_node-a+node-c.log").read_text()
    assert "-np 16" in pair and "node-a:8" in pair and "node-c:8" in pair
    assert "/opt/nccl-tests/build/alltoall_perf" in pair
    commands = (unpacked / "logs" / "launch_commands.txt").read_text().splitlines()
    assert len(commands) == 8


def test_nccl_runs_use_srun_inside_slurm(unpacked: Path) -> None:
    result = run(
        ["bash", "run_nccl_tests.sh", "--dry-run"],
        unpacked,
        HOSTS="n1,n2,n3",
        SLURM_JOB_ID="42",
    )
    assert result.returncode == 0, result.stderr
    text = (unpacked / "logs" / "nccl_all_reduce_n2+n3.log").read_text()
    assert text.startswith("srun --nodes=2 --ntasks=16 --ntasks-per-node=8 --nodelist=n2\\,n3")


def test_nccl_runs_refuse_the_wrong_node_count(unpacked: Path) -> None:
    result = run(["bash", "run_nccl_tests.sh", "--dry-run"], unpacked, HOSTS="n1,n2")
    assert result.returncode == 2
    assert "for 3 nodes" in result.stderr


def test_evidence_lands_in_a_folder_per_node(unpacked: Path, tmp_path: Path) -> None:
    # Fake tools on PATH, so the test does not depend on a GPU host.
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("nvidia-smi", "dcgmi", "ibstat", "perfquery"):
        (fake / tool).write_text(f'#!/usr/bin/env bash\necho "{tool} $*"\n')
        (fake / tool).chmod(0o755)
    result = run(
        ["bash", "collect_evidence.sh"],
        unpacked,
        NODE_NAME="node-a",
        PATH=f"{fake}:{os.environ['PATH']}",
    )
    assert result.returncode == 0, result.stderr
    node = unpacked / "evidence" / "node-a"

    def body(name: str) -> str:
        return (node / name).read_text().split("\n", 1)[1].strip()

    assert body("ibstat.txt") == "ibstat"
    assert body("dcgmi-diag.txt") == "dcgmi diag -r 3"
    assert body("nvidia-smi-topo.txt") == "nvidia-smi topo -m"
    query = (node / "nvidia-smi-query.csv").read_text()
    assert "ecc.errors.uncorrected.volatile.total" in query and "--format=csv" in query
    assert "uuid,serial" in query  # GPU ids, so the same GPU under two node labels shows
    assert "fixture_sha256:" in (node / "versions.txt").read_text()
    assert not (node / "missing.txt").exists()


def test_every_collected_file_starts_with_the_collector_header(
    unpacked: Path, tmp_path: Path
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("nvidia-smi", "dcgmi", "ibstat", "perfquery"):
        (fake / tool).write_text(f'#!/usr/bin/env bash\necho "{tool} $*"\n')
        (fake / tool).chmod(0o755)
    # A host whose full name resolves: the header carries it, NODE_NAME stays the folder.
    (fake / "hostname").write_text(
        '#!/usr/bin/env bash\n[[ "$1" == -f ]] && echo gpu-a01.hel2.example || echo gpu-a01\n'
    )
    (fake / "hostname").chmod(0o755)
    result = run(
        ["bash", "collect_evidence.sh"],
        unpacked,
        NODE_NAME="node-a",
        PATH=f"{fake}:{os.environ['PATH']}",
    )
    assert result.returncode == 0, result.stderr
    node = unpacked / "evidence" / "node-a"
    names = ("nvidia-smi-topo.txt", "nvidia-smi-query.csv", "dcgmi-diag.txt", "ibstat.txt",
             "perfquery.txt")  # fmt: skip
    for name in (*names, "versions.txt"):
        first = (node / name).read_text().split("\n", 1)[0]
        origin = read_header(first)
        assert origin is not None, f"{name} starts with {first!r}"
        assert origin.node == "node-a"
        assert origin.host == "gpu-a01.hel2.example"
        assert origin.collected is not None
        collected = datetime.strptime(origin.collected, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        assert abs((datetime.now(UTC) - collected).total_seconds()) < 120


def test_evidence_names_missing_tools(unpacked: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for tool in ("bash", "dirname", "mkdir", "hostname", "sed", "head", "uname", "cat"):
        found = shutil.which(tool)
        if found:
            (empty / tool).symlink_to(found)
    result = run(["bash", "collect_evidence.sh"], unpacked, NODE_NAME="n1", PATH=str(empty))
    assert result.returncode == 3, result.stderr
    missing = (unpacked / "evidence" / "n1" / "missing.txt").read_text()
    assert "ibstat.txt: ibstat not found" in missing
    assert "perfquery.txt: perfquery not found" in missing


def test_upload_needs_url_and_token(unpacked: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLUSTERBID_")}
    result = subprocess.run(
        ["bash", "upload_evidence.sh", "17"],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "CLUSTERBID_URL" in result.stderr


def test_ib_counters_are_read_before_the_workload_too(unpacked: Path, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("ibstat", "perfquery"):
        (fake / tool).write_text(f'#!/usr/bin/env bash\necho "{tool} $*"\n')
        (fake / tool).chmod(0o755)
    env = {"NODE_NAME": "node-a", "PATH": f"{fake}:{os.environ['PATH']}"}
    result = run(["bash", "collect_evidence.sh", "--counters-before"], unpacked, **env)
    assert result.returncode == 0, result.stderr
    node = unpacked / "evidence" / "node-a"
    assert sorted(p.name for p in node.iterdir()) == ["commands-before.txt", "perfquery-before.txt"]
    origin = read_header((node / "perfquery-before.txt").read_text().split("\n", 1)[0])
    assert origin is not None and origin.node == "node-a" and origin.collected
    # The full run afterwards keeps the before reading and its command log.
    run(["bash", "collect_evidence.sh"], unpacked, **env)
    names = {p.name for p in node.iterdir()}
    assert {"perfquery-before.txt", "commands-before.txt", "perfquery.txt"} <= names
    sbatch = (unpacked / "fixture.sbatch").read_text()
    before = sbatch.index('collect_evidence.sh" --all-nodes --counters-before')
    assert before < sbatch.index('"${FIXTURE_CMD[@]}"') < sbatch.index("--all-nodes || STATUS=1")


def test_unknown_collector_options_are_refused(unpacked: Path) -> None:
    result = run(["bash", "collect_evidence.sh", "--counters-after"], unpacked)
    assert result.returncode == 2 and "unknown option: --counters-after" in result.stderr
