"""Errors with a known meaning beyond their generic class, and the cause category of every event.

`decode(body)` reads NCCL's duplicate-GPU and invalid-usage errors, DeepSpeed's engine errors and
Slurm's own out-of-memory and node-failure lines as specific kinds. `categorise(events)` then
sets `detail["category"]` on each event whose line says whose side it is on:

* `infrastructure`: the machine or the fabric (a lost node, a non-application Xid, ECC, a
  network transport error);
* `job`: the job's own configuration, code or data (a memory-cgroup OOM of the job's own limit,
  a size mismatch between ranks, a data error, several ranks on one GPU, a DeepSpeed config);
* no category: the line alone cannot tell (a CUDA launch failure is a kernel bug or a GPU falling
  over; a SIGKILL is anyone's).

The verdict maps the category of the initiating event to an owner; `category_reason` says why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from . import launch, node_faults, ray, ray_actor, rendezvous, storage
from .model import INFRASTRUCTURE, JOB, Event

# Literals that bring a line to `decode` (see `lines.ANCHORS`; each costs one pass over every
# log). Slurm's OOM and node-failure lines already contain `oom` or `srun`, NCCL's warnings
# `NCCL WARN`, and a traceback's last line is read whatever it contains.
ANCHORS = (
    "Duplicate GPU",
    "invalid usage",
    "DeepSpeed",
    *launch.ANCHORS,
    *node_faults.ANCHORS,
    *ray.ANCHORS,
    *ray_actor.ANCHORS,
    *rendezvous.ANCHORS,
    *storage.ANCHORS,
)

# NCCL's init.cc: `WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx")`.
_DUPLICATE = re.compile(
    r"Duplicate GPU detected\s*:\s*rank (\d+) and rank (\d+) both on CUDA device ([0-9a-fA-F]+)"
)
_INVALID = re.compile(r"ncclInvalidUsage|NCCL error[^\n]*?invalid usage")
_DEEPSPEED = re.compile(
    r"(Check batch related parameters[^\n]*)|(DeepSpeedConfigError[^\n]*)"
    r"|(Current loss scale already at minimum[^\n]*)"
    r"|(checkpoint being loaded used a DP world size of \d+ but the current world size is \d+)"
    r"|((?:deepspeed|DeepSpeed)\w*(?:\.\w+)*(?:Error|Exception)\b[^\n]*)"
)
# Slurm: `Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have been OOM
# Killed.` (22.05 and later) or `Detected 1 oom-kill event(s) in StepId=4242.0 cgroup.` (older).
_SLURM_OOM = re.compile(
    r"Detected (\d+) oom[-_]kill events?(?:\(s\))? in (?:StepId=|step )(\d+)\.(\w+)"
)
# srun: `srun: error: Node failure on gpu-node-c` (the controller declared the node down).
_NODE_FAILURE = re.compile(r"srun: error: Node failure on (\S+)")
# srun: `srun: error: gpu-node-b: task 11: Out Of Memory`: Slurm saw the task's cgroup OOM.
_SRUN_OOM = re.compile(r"srun: error: (\S+): tasks? ([\d,\-]+): Out Of Memory")


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    """The specific kind of one line's message, or None when it is not one of these."""
    m = _DUPLICATE.search(body)
    if m is not None:
        return "nccl_duplicate_gpu", {
            "tier": 1, "ranks": [int(m.group(1)), int(m.group(2))], "bus_id": m.group(3),
            "cause": "two ranks on one GPU", "category": JOB,
            "category_reason": f"ranks {m.group(1)} and {m.group(2)} were placed on the same GPU "
                               f"({m.group(3)}): the job's device assignment (LOCAL_RANK, "
                               "CUDA_VISIBLE_DEVICES)",
        }  # fmt: skip
    if _INVALID.search(body):
        return "nccl_invalid_usage", {
            "tier": 1, "cause": "NCCL invalid usage", "category": JOB,
            "category_reason": "NCCL reports an invalid use of its API by the job",
        }  # fmt: skip
    m = _SLURM_OOM.search(body)
    if m is not None:
        return "oom", {
            "tier": 1, "limit": True, "slurm_step": f"{m.group(2)}.{m.group(3)}",
            "count": int(m.group(1)),
            "cause": "memory cgroup of the Slurm step",
        }  # fmt: skip
    m = _NODE_FAILURE.search(body)
    if m is not None:
        return "scheduler", {
            "cause": "node failure", "host": m.group(1), "secondary": False, "tier": 0,
            "node_failure": True,
        }  # fmt: skip
    m = _DEEPSPEED.search(body)
    if m is not None:
        return "deepspeed_error", {
            "tier": 1, "cause": next(g for g in m.groups() if g)[:200], "category": JOB,
            "category_reason": "DeepSpeed refused the job's configuration or state",
        }  # fmt: skip
    m = _SRUN_OOM.search(body)
    if m is not None:
        return "scheduler", {
            "host": m.group(1), "tasks": m.group(2), "cause": "Out Of Memory", "signal": 9,
            "oom": True, "secondary": True, "tier": 3, "category": JOB,
            "category_reason": "Slurm killed the task at its memory cgroup's limit",
        }  # fmt: skip
    return (
        launch.decode(body) or node_faults.decode(body) or storage.decode(body)
        or ray.decode(body) or ray_actor.decode(body) or rendezvous.decode(body)
    )  # fmt: skip


# A node the controller declares failed stopped answering up to SlurmdTimeout (300 s by default)
# earlier; a GPU error on that node within this window is the node dying, not the job.
_NODE_LOSS_WINDOW = timedelta(minutes=10)
_DATA_WORDS = re.compile(
    r"UnicodeDecodeError|JSONDecodeError|corrupt|Corrupt|truncated|CRC check|invalid load key"
    r"|not a valid|DataLoader"
)


def categorise(events: Iterable[Event]) -> None:
    """Set `category` (and `category_reason`) on each event that says whose side it is on."""
    events = list(events)
    # A cancel `ON host` names where slurmstepd ran, not the node that failed.
    lost = [e for e in events if e.detail.get("node_failure") and e.node]
    # Each rank's OOM lines per file, read once: a bundle may hold thousands of CUDA errors.
    ooms: dict[tuple[str, int | None], list[int]] = {}
    for e in events:
        if e.kind == "oom":
            ooms.setdefault((e.source, e.rank), []).append(e.line_no)
    for e in events:
        d = e.detail
        if "category" in d:
            continue
        found = _category(e) or _explained(e, ooms)
        if found is None and e.kind in ("cuda_error", "signal", "python_exception"):
            found = _on_lost_node(e, lost)
        if found is not None:
            d["category"], d["category_reason"] = found


def _category(e: Event) -> tuple[str, str] | None:
    d = e.detail
    if e.kind == "ecc" or (e.kind == "xid" and d.get("tier") == 0):
        return INFRASTRUCTURE, f"{e.kind} {d.get('xid', '')} on the GPU".replace("  ", " ")
    if e.kind == "scheduler" and d.get("node_failure"):
        return INFRASTRUCTURE, f"the scheduler declared {e.node or 'a node'} failed"
    if e.kind == "scheduler" and "node fail" in str(d.get("cause")):
        return INFRASTRUCTURE, "Slurm ended the step for a node failure"
    if e.kind == "scheduler" and d.get("cause") in ("NodeNotReady", "NodeLost"):
        return INFRASTRUCTURE, f"Kubernetes reports {d['cause']}"
    if e.kind == "nccl_warn_transport":
        return INFRASTRUCTURE, "a network link (NET/IB or socket) failed"
    if e.kind == "cuda_error":
        return _cuda_category(f"{d.get('error') or ''} {e.text}")
    if e.kind == "oom" and d.get("limit"):
        return JOB, "the job exceeded its own memory limit (cgroup, container)"
    if e.kind == "collective_error":
        return JOB, "the ranks disagree on a collective's size or order: the training code"
    if e.kind == "python_exception" and _DATA_WORDS.search(e.text):
        return JOB, "the job's data could not be read"
    return None


# CUDA's own words for errors whose side is known (cudaErrorECCUncorrectable,
# cudaErrorNvlinkUncorrectable, cudaErrorAssert); the rest (a launch failure, an illegal
# address) are a kernel bug or a GPU falling over alike.
_CUDA_SIDES = (
    (re.compile(r"uncorrectable ECC error|ECC_UNCORRECTABLE|ECCUncorrectable", re.I),
     INFRASTRUCTURE, "the GPU's memory reported an uncorrectable ECC error"),
    (re.compile(r"uncorrectable NVLink error|NVLINK_UNCORRECTABLE|NvlinkUncorrectable", re.I),
     INFRASTRUCTURE, "the GPU's NVLink reported an uncorrectable error"),
    (re.compile(r"system not yet initialized|cudaErrorSystemNotReady|SYSTEM_NOT_READY"),
     INFRASTRUCTURE, "the node's NVSwitch fabric is not up (Fabric Manager not running): the "
                     "node's set-up"),
    (re.compile(r"device-side assert|cudaErrorAssert|CUDA_ERROR_ASSERT"),
     JOB, "the job's own kernel asserted (a device-side assert: an index out of range, a bad "
          "label)"),
)  # fmt: skip


def _cuda_category(error: str) -> tuple[str, str] | None:
    for pattern, side, why in _CUDA_SIDES:
        if pattern.search(error):
            return side, why
    return None


def _explained(e: Event, ooms: dict[tuple[str, int | None], list[int]]) -> tuple[str, str] | None:
    """NCCL's `unhandled cuda error` prints the CUDA call's own error a few lines below it
    (`Last error:` / `Cuda failure 'out of memory'`): out of memory is the job's allocations."""
    if e.kind != "cuda_error" or "unhandled cuda error" not in e.text:
        return None
    if any(0 < line - e.line_no <= 4 for line in ooms.get((e.source, e.rank), ())):
        return JOB, "NCCL's CUDA call ran out of GPU memory: the job's own allocations"
    return None


def _on_lost_node(e: Event, lost: list[Event]) -> tuple[str, str] | None:
    """A node declared failed after this error, soon enough to be the same incident: the
    declaration's time is a range when srun's line has no timestamp of its own."""
    if e.node is None or e.time_utc is None:
        return None
    for n in lost:
        if n.node != e.node or n.time_utc is None:
            continue
        bounds = n.detail.get("time_range") or [None, None]
        latest = datetime.fromisoformat(bounds[1]) if bounds[1] else n.time_utc
        if latest >= e.time_utc and n.time_utc - e.time_utc <= _NODE_LOSS_WINDOW:
            minutes = (latest - e.time_utc).total_seconds() / 60
            return INFRASTRUCTURE, (
                f"{e.node} was declared failed at most {minutes:.0f} min after this error "
                f"({n.source}:{n.line_no}): the node, not the job"
            )
    return None
