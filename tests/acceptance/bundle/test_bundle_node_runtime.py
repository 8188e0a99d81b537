"""The launch files export each node's runtime (OS image; on Kubernetes also the kubelet version
and the worker's instance type) as CLUSTERBID_* for the fixture records, read on the node, with
the fixture's agreed values beside them as CLUSTERBID_AGREED_*."""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

AGREED = {
    "os_image": "Ubuntu 22.04.5 LTS",
    "scheduler": "kubernetes",
    "kubernetes_version": "v1.30.4",
    "worker_node_spec": "a3-ultragpu-8g",
}


@pytest.fixture
def spec(spec: dict[str, Any]) -> dict[str, Any]:
    spec["runtime"].update(AGREED)
    return spec


def _fixture_module(root: Path) -> Any:
    loaded = importlib.util.spec_from_file_location(
        "rendered_fixture", root / "fixture_allreduce.py"
    )
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def _node_facts(root: Path, os_release: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("CLUSTERBID_", "KUBERNETES_"))
    }
    return subprocess.run(
        [sys.executable, "fixture_allreduce.py", "--node-facts", "--os-release", str(os_release)],
        cwd=root,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_fixture_env_exports_the_agreed_node_runtime(unpacked: Path) -> None:
    env = (unpacked / "fixture.env").read_text()
    assert "export CLUSTERBID_AGREED_OS_IMAGE='Ubuntu 22.04.5 LTS'" in env
    assert "export CLUSTERBID_AGREED_KUBERNETES_VERSION=v1.30.4" in env
    assert "export CLUSTERBID_AGREED_WORKER_NODE_SPEC=a3-ultragpu-8g" in env
    # What a node ran is never copied from the spec: that would pass its own check.
    assert "CLUSTERBID_OS_IMAGE=" not in env.replace("CLUSTERBID_AGREED_OS_IMAGE=", "")
    sourced = subprocess.run(
        ["bash", "-c", "source fixture.env && echo \"$CLUSTERBID_AGREED_OS_IMAGE\""],
        cwd=unpacked, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert sourced.stdout.strip() == "Ubuntu 22.04.5 LTS"


def test_the_slurm_job_exports_each_nodes_os_image_before_its_workers(unpacked: Path) -> None:
    script = (unpacked / "fixture.sbatch").read_text()
    assert 'NODE_FACTS=\'eval "$(python3 "$0" --node-facts)" && exec python3 "$0" "$@"\'' in script
    assert 'bash -c "${NODE_FACTS}" "${HERE}/fixture_allreduce.py"' in script
    assert subprocess.run(["bash", "-n", "fixture.sbatch"], cwd=unpacked).returncode == 0


def test_node_facts_read_the_os_release_and_warn_on_a_difference(
    unpacked: Path, tmp_path: Path
) -> None:
    release = tmp_path / "os-release"
    release.write_text('NAME="Ubuntu"\nVERSION_ID="24.04"\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n')
    result = _node_facts(unpacked, release, CLUSTERBID_AGREED_OS_IMAGE="Ubuntu 22.04.5 LTS")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "export CLUSTERBID_OS_IMAGE='Ubuntu 24.04.1 LTS'\n"
    assert "os_image on this node is 'Ubuntu 24.04.1 LTS'; agreed: 'Ubuntu 22.04.5 LTS'" in (
        result.stderr
    )
    # The launcher evaluates the lines: the records then carry the node's value.
    shell = subprocess.run(
        ["bash", "-c", f"eval {shlex.quote(result.stdout)} && echo \"$CLUSTERBID_OS_IMAGE\""],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert shell.stdout.strip() == "Ubuntu 24.04.1 LTS"


def test_inside_a_pod_without_its_node_nothing_is_claimed(unpacked: Path, tmp_path: Path) -> None:
    release = tmp_path / "os-release"
    release.write_text(
        'PRETTY_NAME="Ubuntu 22.04.5 LTS"\n'
    )  # the container image's, not the node's
    result = _node_facts(
        unpacked, release, KUBERNETES_SERVICE_HOST="10.0.0.1", NODE_NAME="gpu-node-1",
        CLUSTERBID_AGREED_KUBERNETES_VERSION="v1.30.4",
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout == ""
    assert "could not read Node gpu-node-1" in result.stderr
    assert "this node shows no kubernetes_version; agreed: v1.30.4" in result.stderr


def test_a_kubernetes_node_gives_its_os_image_kubelet_and_instance_type(unpacked: Path) -> None:
    module = _fixture_module(unpacked)
    node = {
        "metadata": {"labels": {"node.kubernetes.io/instance-type": "a3-ultragpu-8g"}},
        "status": {"nodeInfo": {"osImage": "Ubuntu 22.04.5 LTS", "kubeletVersion": "v1.30.4"}},
    }
    assert module.facts_from_node(node) == {
        "os_image": "Ubuntu 22.04.5 LTS",
        "kubernetes_version": "v1.30.4",
        "worker_node_spec": "a3-ultragpu-8g",
    }


def test_the_kubernetes_job_reads_its_node_before_the_workers(unpacked: Path) -> None:
    docs = list(yaml.safe_load_all((unpacked / "fixture-job.yaml").read_text()))
    by_kind = {d["kind"]: d for d in docs}
    assert by_kind["ClusterRole"]["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}
    ]
    subject = by_kind["ClusterRoleBinding"]["subjects"][0]
    assert subject["name"] == by_kind["ServiceAccount"]["metadata"]["name"]
    pod = by_kind["Job"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "clusterbid-fixture"
    container = pod["containers"][0]
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert env["CLUSTERBID_AGREED_OS_IMAGE"]["value"] == "Ubuntu 22.04.5 LTS"
    assert env["CLUSTERBID_AGREED_KUBERNETES_VERSION"]["value"] == "v1.30.4"
    assert env["CLUSTERBID_AGREED_WORKER_NODE_SPEC"]["value"] == "a3-ultragpu-8g"
    assert "CLUSTERBID_OS_IMAGE" not in env
    args = container["args"][0]
    assert args.startswith('eval "$(python3 /fixture/fixture_allreduce.py --node-facts)" && ')
    assert "exec torchrun" in args
