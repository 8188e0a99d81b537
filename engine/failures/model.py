"""Plain data shared by every stage: source files, normalised events, refusals."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Kinds that are consequences of someone else's failure: a rank that waited, a launcher that tore
# the job down, a scheduler that cancelled it. They are grouped, never chosen first when a causal
# event exists.
# Where a rank or an event ran when no file names its host (a kernel log or `nvidia-smi -q`
# uploaded on its own, a log line without a launcher prefix): one wording in every message.
UNNAMED_NODE = "a node the evidence does not name"

# Whose side a line says it is on (`decoded.categorise`): the machine or fabric, or the job.
INFRASTRUCTURE = "infrastructure"
JOB = "job"

SECONDARY_KINDS = frozenset(
    {"nccl_timeout", "launcher_summary", "scheduler", "signal", "gloo", "peer_lost"}
)

KINDS = (
    "nccl_timeout",
    "nccl_warn_transport",
    "nccl_warn",
    "cuda_error",
    "xid",
    "ecc",
    "python_exception",
    "oom",
    "signal",
    "scheduler",
    "gloo",
    "launcher_summary",
    "collective_desync",
    "collective_mismatch",
    "collective_error",
    "cpp_terminate",
    "incomplete_dump",
    "missing_record",
    "nccl_init",
    "nccl_duplicate_gpu",
    "nccl_invalid_usage",
    "deepspeed_error",
    "peer_lost",
    "remote_peer_failed",
    "launch_failure",
    "link_down",
    "gpu_lost",
    "storage_lost",
    "disk_full",
    "node_crash",
    "host_memory",
    "node_hang",
)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of the bundle. A refused member keeps its name, no data, and the reason."""

    name: str
    data: bytes = b""
    refused: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass(slots=True)
class Event:
    """One normalised line (or block) of evidence.

    `time_utc` comes from the log's own timestamp (None when the line has none); `rank` and
    `node` may be filled in later from the rank map.
    """

    time_utc: datetime | None
    rank: int | None
    node: str | None
    source: str
    line_no: int
    kind: str
    text: str
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def secondary(self) -> bool:
        return bool(self.detail.get("secondary", self.kind in SECONDARY_KINDS))

    def to_json(self) -> dict[str, Any]:
        # A time borrowed from another process's line is no time of this one: only its range.
        own = self.time_utc is not None and not self.detail.get("time_inferred")
        bounds = self.detail.get("time_range")
        return {
            "time": self.time_utc.isoformat() if own and self.time_utc else None,
            "time_range": {"after": bounds[0], "before": bounds[1]} if bounds else None,
            "category": self.detail.get("category"),
            "rank": self.rank,
            "node": self.node,
            "kind": self.kind,
            "message": self.text,
            "source": self.source,
            "line": self.line_no,
            "detail": {k: v for k, v in self.detail.items() if _jsonable(v)},
        }


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | list | dict)
