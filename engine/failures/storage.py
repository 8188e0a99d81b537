"""Storage a node lost or filled, in the words of the kernel and the filesystem clients:

* a shared filesystem that stopped answering: NFS's `nfs: server storage01 not responding,
  still trying` (`timed out` on a soft mount); Lustre's `Connection to scratch-MDT0000 (at
  10.0.0.2@o2ib) was lost` and `This client was evicted by scratch-OST0002`; IBM Storage Scale's
  (GPFS) `Lost membership in cluster`. The cluster's storage, whatever the job was doing: a rank
  blocked on it stalls the collective every other rank then waits in.
* a disk that filled: `No space left on device` (ENOSPC, errno 28), from Python or any tool.
  Whose disk decides it: the job's own checkpoints filling what it was given, or a filesystem
  the provider runs full. Left undetermined, naming what decides it. A quota the job went past
  (`Disk quota exceeded`, EDQUOT) is the job's.
"""

from __future__ import annotations

import re
from typing import Any

from .model import INFRASTRUCTURE, JOB

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = (
    "not responding",
    "was lost; in progress",
    "evicted by",
    "Lost membership in cluster",
    "No space left on device",
    "Disk quota exceeded",
)

_NFS = re.compile(r"\bnfs: server (\S+) not responding, (?:still trying|timed out)")
_LUSTRE_LOST = re.compile(r"Connection to (\S+) \(at ([^)]+)\) was lost; in progress")
_LUSTRE_EVICTED = re.compile(r"This client was evicted by (\S+?);")
_GPFS = re.compile(r"Lost membership in cluster (\S+?)\.? ")
_FULL = re.compile(r"No space left on device")
_QUOTA = re.compile(r"Disk quota exceeded")

STORAGE_LOST = "storage_lost"
DISK_FULL = "disk_full"


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    for pattern, words in (
        (_NFS, "NFS server {} stopped answering"),
        (_LUSTRE_LOST, "the Lustre connection to {} was lost"),
        (_LUSTRE_EVICTED, "Lustre's {} evicted this client"),
        (_GPFS, "the node lost its membership of Storage Scale (GPFS) cluster {}"),
    ):
        m = pattern.search(body + " ")
        if m is not None:
            return STORAGE_LOST, {
                "tier": 1,
                "cause": words.format(m.group(1)),
                "category": INFRASTRUCTURE,
                "category_reason": "the shared filesystem stopped answering the node: the "
                "cluster's storage",
            }
    if _QUOTA.search(body):
        return DISK_FULL, {
            "tier": 1,
            "cause": "the job went past its disk quota (Disk quota exceeded)",
            "category": JOB,
            "category_reason": "the quota is the job's own allowance",
        }
    if _FULL.search(body):
        if "/dev/shm" in body:  # NCCL's shared-memory segment: a container's shm is 64 MB
            return DISK_FULL, {"tier": 1, "cause": "/dev/shm filled as NCCL made its segment"}
        return DISK_FULL, {"tier": 1, "cause": "a disk the job wrote to filled (No space left)"}
    return None


def disk_full_owner(decides: str) -> str:
    """Why a full disk stays undetermined, and what decides it."""
    return (
        f"a disk the job wrote to filled (No space left on device); {decides}: which filesystem "
        "it was (`df` on the node): the job's own checkpoints or outputs filling what the "
        "contract gave it (customer), or local scratch or a shared filesystem the provider "
        "runs full (provider)"
    )
