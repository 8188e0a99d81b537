"""The acceptance fixture's own output: one JSON object per worker, one per line.

Unknown extra keys are kept out of the way (tolerated); a missing required key or a wrong type
names the line. srun/mpirun label prefixes are stripped so a collected launcher log also works.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.evidence.parsers.base import (
    FixtureResultError,
    decode_text,
    number_problem,
    split_prefix,
)
from engine.evidence.parsers.header import EvidenceOrigin

KIND = "fixture-result"
REQUIRED = (
    "rank",
    "world_size",
    "host",
    "local_rank",
    "device",
    "count",
    "dtype",
    "pass",
    "min",
    "max",
    "expected",
    "elapsed_s",
    "torch_version",
    "nccl_version",
    "cuda_version",
)


@dataclass(frozen=True)
class FixtureRecord:
    rank: int
    world_size: int
    host: str
    local_rank: int
    device: str
    count: int
    dtype: str
    passed: bool
    min: float
    max: float
    expected: float
    elapsed_s: float
    torch_version: str
    nccl_version: str | None  # None only on a CPU worker (the gloo dry run has no NCCL)
    cuda_version: str | None
    line: int
    # The image the worker ran in, when the launcher passes it on (a tolerated extra key).
    container_image: str | None = None
    # The node's OS image, and where Kubernetes runs the workers its version and the worker
    # node's spec (instance type or node label), when the launcher passes them on.
    os_image: str | None = None
    kubernetes_version: str | None = None
    worker_node_spec: str | None = None

    @property
    def on_cpu(self) -> bool:
        return self.device == "cpu" or self.device.startswith("cpu:")


@dataclass(frozen=True)
class FixtureResult:
    KIND: ClassVar[str] = KIND
    records: tuple[FixtureRecord, ...]
    world_sizes: tuple[int, ...]  # distinct world_size values reported
    hosts: tuple[str, ...]
    # The collector's header, when the file has one (engine/evidence/parsers/header.py).
    origin: EvidenceOrigin | None = field(default=None, metadata={"json": False})


def detect(text: str) -> float:
    for raw in text[:20_000].split("\n"):
        _, line = split_prefix(raw)
        s = line.strip()
        if not s:
            continue
        if s.startswith("{") and '"world_size"' in s and '"rank"' in s:
            return 0.95 if '"expected"' in s else 0.7
        return 0.0
    return 0.0


def _err(message: str, line: int) -> FixtureResultError:
    return FixtureResultError(message, line=line, kind=KIND)


def _int(obj: dict[str, Any], key: str, line: int) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _err(f"{key!r} must be an integer, found {value!r}", line)
    return value


def _num(obj: dict[str, Any], key: str, line: int) -> float:
    value = obj[key]
    # float() overflows on an int past ~1.8e308: bound it before math.isfinite sees it.
    too_big = isinstance(value, int) and abs(value) >= 1 << 1023
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or too_big
        or not math.isfinite(value)
    ):
        shown = f"{str(value)[:20]}..." if too_big else repr(value)
        raise _err(f"{key!r} must be a finite number, found {shown}", line)
    return float(value)


def _version(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return ".".join(str(v) for v in value)
    return str(value)


def _optional_text(obj: dict[str, Any], key: str, line: int) -> str | None:
    value = obj.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _err(f"{key!r} must be a string, found {value!r}", line)
    return value


def _record(obj: Any, line: int) -> FixtureRecord:
    if not isinstance(obj, dict):
        raise _err("expected a JSON object per line", line)
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise _err(f"fixture record lacks required key(s): {', '.join(missing)}", line)
    passed = obj["pass"]
    if not isinstance(passed, bool):
        raise _err(f"'pass' must be true or false, found {passed!r}", line)
    for key in ("host", "dtype"):
        if not isinstance(obj[key], str) or not obj[key]:
            raise _err(f"{key!r} must be a non-empty string, found {obj[key]!r}", line)
    nccl = _version(obj["nccl_version"])
    device = str(obj["device"])
    if nccl is None and not (device == "cpu" or device.startswith("cpu:")):
        raise _err(
            f"'nccl_version' must not be null on a GPU worker (device {device}); only a CPU "
            "dry run (--backend gloo) runs without NCCL",
            line,
        )
    return FixtureRecord(
        rank=_int(obj, "rank", line),
        world_size=_int(obj, "world_size", line),
        host=obj["host"],
        local_rank=_int(obj, "local_rank", line),
        device=device,
        count=_int(obj, "count", line),
        dtype=obj["dtype"],
        passed=passed,
        min=_num(obj, "min", line),
        max=_num(obj, "max", line),
        expected=_num(obj, "expected", line),
        elapsed_s=_num(obj, "elapsed_s", line),
        torch_version=str(obj["torch_version"]),
        nccl_version=nccl,
        cuda_version=_version(obj["cuda_version"]),
        line=line,
        container_image=_optional_text(obj, "container_image", line),
        os_image=_optional_text(obj, "os_image", line),
        kubernetes_version=_optional_text(obj, "kubernetes_version", line),
        worker_node_spec=_optional_text(obj, "worker_node_spec", line),
    )


def parse(text: str | bytes) -> FixtureResult:
    text = decode_text(text, kind=KIND, error=FixtureResultError)
    records: list[FixtureRecord] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        _, line = split_prefix(raw)
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if not s.startswith("{"):
            raise _err(f"expected a JSON object, found {s[:40]!r}", lineno)
        try:
            obj = json.loads(s)
        except json.JSONDecodeError as exc:
            raise _err(f"invalid JSON: {exc.msg} (column {exc.colno})", lineno) from None
        except RecursionError:
            raise _err("JSON nests too deeply", lineno) from None
        except ValueError as exc:  # an integer literal past int()'s digit limit
            raise _err(f"invalid JSON: {number_problem(exc)}", lineno) from None
        records.append(_record(obj, lineno))
    if not records:
        raise FixtureResultError("no fixture records found", kind=KIND)
    return FixtureResult(
        records=tuple(records),
        world_sizes=tuple(sorted({r.world_size for r in records})),
        hosts=tuple(dict.fromkeys(r.host for r in records)),
    )
