"""Read the fixture spec (`clusterbid.fixture/1`, docs/fixture-schema.md) with safe defaults."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.domain import EVIDENCE_KINDS
from engine.evidence.large_message import LARGE_MESSAGE_BYTES, large_message_bytes

# House defaults for the IB port error counters a burn-in may show (perfquery, since the last
# counter reset): a link that went down or retrained, or lost integrity, is not a new cluster's
# link; a few symbol errors happen on a healthy cable as it settles; discards come with
# congestion under an all-reduce storm, so a small number is tolerated. Tune per request.
IB_COUNTER_MAX_DEFAULT: dict[str, int] = {
    "LinkDownedCounter": 0,
    "LinkErrorRecoveryCounter": 0,
    "SymbolErrorCounter": 10,
    "LocalLinkIntegrityErrors": 0,
    "ExcessiveBufferOverrunErrors": 0,
    "PortRcvErrors": 0,
    "PortRcvRemotePhysicalErrors": 0,
    "PortXmitDiscards": 100,
}

DEFAULT_THRESHOLDS: dict[str, Any] = {
    "large_message_bytes": LARGE_MESSAGE_BYTES,
    "busbw_gbps": {},
    "nvlink_class": None,
    "rail_optimised": False,
    "dcgm_level": 3,
    "dcgm_warn_policy": "fail",
    "ib_rate_gbps": None,
    "ib_ports_per_node": None,
    "ecc_uncorrected_max": 0,
    "step_time_tolerance_pct": 5.0,
    "step_time_spread_pct": 10.0,
    # Seed 001: "a short run of your own model at production scale for a few hours".
    "burnin_min_minutes": 120.0,
    "step_time_tail_factor": 1.2,
    "ib_counter_max": IB_COUNTER_MAX_DEFAULT,
    # Pilot probe floors (checks/probes.py): none by default, so a burn-in does not need them.
    "host_device_gbps_min": None,
    "fabric_gbps_min": None,
    "fabric_p99_latency_us_max": None,
    # Temperature limits for the nvidia-smi dmon capture (checks/gpu_monitor.py): none by
    # default, since the safe figure differs by GPU model and cooling; a reading at or above an
    # agreed limit fails.
    "gpu_temp_limit_c": None,
    "memory_temp_limit_c": None,
}


@dataclass(frozen=True)
class Spec:
    """The parts of a fixture spec the checks read, overrides applied."""

    gpu_model: str | None
    nodes: int
    gpus_per_node: int
    workers_per_gpu: int
    driver_version: str | None
    nccl_version: str | None
    transport: str | None
    fixture_count: int | None
    fixture_dtype: str | None
    collectives: tuple[str, ...]
    min_bytes: int | None
    max_bytes: int | None
    nccl_check: bool
    bisection: bool
    thresholds: dict[str, Any] = field(default_factory=dict)
    required_evidence: tuple[str, ...] = EVIDENCE_KINDS
    cuda_version: str | None = None
    container_image: str | None = None
    os_image: str | None = None
    scheduler: str | None = None  # "slurm" | "kubernetes"
    kubernetes_version: str | None = None
    worker_node_spec: str | None = None
    collective_backend: str | None = None  # one of engine.domain.COLLECTIVE_BACKENDS

    @property
    def world_size(self) -> int:
        return self.nodes * self.gpus_per_node * self.workers_per_gpu

    @property
    def large_message_bytes(self) -> int:
        return large_message_bytes(self.thresholds)

    def agreed_limit(self, key: str) -> float | None:
        """An optional threshold the fixture agreed, as a number; None while it is unset (null,
        zero or not a number): such a check is not judged."""
        value = self.thresholds.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
        return None

    def busbw_threshold(self, collective: str | None) -> float | None:
        table = self.thresholds.get("busbw_gbps") or {}
        value = table.get(collective) if collective else None
        return float(value) if isinstance(value, int | float) else None


def _set_dotted(doc: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = doc
    for key in keys[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[keys[-1]] = value


def _get(doc: Mapping[str, Any], *keys: str) -> Any:
    node: Any = doc
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def _int(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
    )


def load_spec(raw: Mapping[str, Any]) -> Spec:
    """Build a Spec. Overrides are applied on top: their `value` is the agreed number."""
    doc = copy.deepcopy(dict(raw))
    for override in doc.get("overrides") or []:
        if isinstance(override, Mapping) and isinstance(override.get("field"), str):
            _set_dotted(doc, override["field"], override.get("value"))
    thresholds = copy.deepcopy(DEFAULT_THRESHOLDS)
    for key, value in (doc.get("thresholds") or {}).items():
        if value is not None:
            thresholds[key] = value
    nccl = _get(doc, "tests", "nccl_tests") or {}
    fixture = _get(doc, "tests", "allreduce_fixture") or {}
    required = doc.get("required_evidence")
    return Spec(
        gpu_model=doc.get("gpu_model"),
        nodes=_int(_get(doc, "allocation", "nodes"), 1),
        gpus_per_node=_int(_get(doc, "allocation", "gpus_per_node"), 8),
        workers_per_gpu=_int(_get(doc, "allocation", "workers_per_gpu"), 1),
        driver_version=_get(doc, "runtime", "driver_version"),
        nccl_version=_get(doc, "runtime", "nccl_version"),
        transport=_get(doc, "runtime", "transport"),
        fixture_count=fixture.get("count"),
        fixture_dtype=fixture.get("dtype"),
        collectives=tuple(nccl.get("collectives") or ()),
        min_bytes=nccl.get("min_bytes"),
        max_bytes=nccl.get("max_bytes"),
        nccl_check=bool(nccl.get("check", 1)),
        bisection=bool(_get(doc, "tests", "bisection")),
        thresholds=thresholds,
        required_evidence=tuple(required) if isinstance(required, list) else EVIDENCE_KINDS,
        cuda_version=_get(doc, "runtime", "cuda_version"),
        container_image=_get(doc, "runtime", "container_image"),
        **_runtime_extras(doc),
    )


def _runtime_extras(doc: Mapping[str, Any]) -> dict[str, str | None]:
    """The runtime fields a spec written before they existed lacks: None, not agreed."""
    keys = ("os_image", "scheduler", "kubernetes_version", "worker_node_spec", "collective_backend")
    out: dict[str, str | None] = {}
    for key in keys:
        value = _get(doc, "runtime", key)
        out[key] = value if isinstance(value, str) and value.strip() else None
    return out


def within_allocation(spec: Spec, *, nodes: int, gpus_per_node: int) -> Spec:
    """The spec checked against a smaller allocation than it was written for: a lot's
    reservation holds `nodes` of `gpus_per_node` GPUs, so no check asks for evidence from nodes
    or GPUs it never had. A spec that already tests fewer (a subset run) keeps its own size;
    thresholds and every other agreed figure stay as written."""
    return replace(
        spec,
        nodes=min(spec.nodes, max(nodes, 1)),
        gpus_per_node=min(spec.gpus_per_node, max(gpus_per_node, 1)),
    )
