"""The runtime each node ran, read from stored parse results (`parsers.to_json` documents).

The hand-over baseline freezes it and the recovery comparison reads a recovery run the same
way, so "the node ran CUDA 12.6 at hand-over" and "it runs 12.4 now" come from one reading.
Per host: the CUDA runtime (NCCL's version banner, the fixture's records), the NCCL version,
the driver (nvidia-smi, dcgmi diag), the driver's newest CUDA (nvidia-smi), and what the
fixture's records carry (container image, OS image, Kubernetes version, worker node spec).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Versions = dict[str, dict[str, list[str]]]

_RECORD_KEYS = {
    "cuda_version": "cuda",
    "nccl_version": "nccl",
    "container_image": "container_image",
    "os_image": "os_image",
    "kubernetes_version": "kubernetes_version",
    "worker_node_spec": "worker_node_spec",
}


def _add(out: dict[str, dict[str, set[str]]], host: Any, key: str, value: Any) -> None:
    if isinstance(host, str) and host and value not in (None, ""):
        out.setdefault(host, {}).setdefault(key, set()).add(str(value))


def _nccl(out: dict[str, dict[str, set[str]]], parsed: Mapping[str, Any]) -> None:
    for run in [parsed, *(parsed.get("runs") or [])]:
        hosts = [h for h in run.get("nodes") or [] if isinstance(h, str)]
        by_host = run.get("host_cuda") or {}
        for host, cuda in by_host.items():
            _add(out, host, "cuda", cuda)
        for host in hosts:
            if not by_host:
                _add(out, host, "cuda", run.get("cuda_version"))
            _add(out, host, "nccl", run.get("nccl_version"))


def _per_node(out: dict[str, dict[str, set[str]]], f: Mapping[str, Any]) -> None:
    """Files that ran on the node their upload names (nvidia-smi, dcgmi diag)."""
    parsed = f.get("parsed") or {}
    node = f.get("node") or parsed.get("node")
    if f.get("kind") == "nvidia-smi-query":
        for gpu in parsed.get("gpus") or []:
            _add(out, node, "driver", gpu.get("driver_version"))
            _add(out, node, "driver_cuda", gpu.get("cuda_version"))
    elif f.get("kind") == "dcgmi-diag":
        _add(out, node, "driver", parsed.get("driver_version"))


def node_versions(*, files: Iterable[Mapping[str, Any]]) -> Versions:
    """{host: {"cuda": [...], "nccl": [...], "driver": [...], ...}}, each list sorted."""
    found: dict[str, dict[str, set[str]]] = {}
    for f in files:
        parsed, kind = f.get("parsed") or {}, f.get("kind")
        if kind == "nccl-tests":
            _nccl(found, parsed)
        elif kind == "fixture-result":
            for record in parsed.get("records") or []:
                for key, name in _RECORD_KEYS.items():
                    _add(found, record.get("host"), name, record.get(key))
        else:
            _per_node(found, f)
    return {
        host: {key: sorted(values) for key, values in sorted(keys.items())}
        for host, keys in sorted(found.items())
    }
