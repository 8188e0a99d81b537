"""What NCCL's own log lines (NCCL_DEBUG=INFO) say about the runtime, read inside nccl-tests output.

    gpu-a01:2619530:2619530 [0] NCCL INFO NCCL version 2.30.7+cuda13.3
    gpu-a01:2619530:2619530 [0] NCCL INFO GIN/Plugin: Assigned plugin GIN_IB_GDAKI type 3 to comm

The banner gives the NCCL version and the CUDA runtime NCCL was built for; with the INFO prefix
it also names the host, so each node's CUDA can be told apart. The GIN line names the backend
GPU-initiated networking uses: NCCL's `ncclGinType_t` numbers it (2 proxy, 3 GDAKI, 4 GPI,
5 EFA GDA); a plugin outside those numbers is named by its plugin name.

AMD's RCCL (under rccl-tests) prints its own banner, kept as the run's NCCL version: RCCL
numbers its releases after the NCCL it follows, and PyTorch on ROCm reports that number too.
Its HIP runtime is no CUDA version and is not kept as one.

    RCCL version 2.18.3+hip6.0 HEAD:2f6d59e+                 (older releases)
    RCCL version : 2.22.3-HEAD:7d8d67c                       (newer: HIP, ROCm on lines below)
    node-01:927:927 [0] NCCL INFO RCCL version : 2.26.6-HEAD:f224e2c
"""

from __future__ import annotations

import re

from engine.domain import COLLECTIVE_BACKENDS

BANNER_RE = re.compile(r"NCCL version (\d+\.\d+\.\d+)(?:\S*?\+cuda(\d+(?:\.\d+)+))?")
RCCL_BANNER_RE = re.compile(r"\bRCCL version\s*:?\s*(\d+\.\d+\.\d+)")
# host:pid:tid [device] NCCL INFO ... (a launcher label is already taken off the line).
_HOST_RE = re.compile(r"^([A-Za-z0-9][\w.-]*):\d+:\d+\s+\[\d+\]\s+NCCL\s+(?:INFO|WARN)\b")
_GIN_RE = re.compile(r"GIN/Plugin: Assigned plugin (\S+) type (\d+)")
_GIN_TYPES = {2: "proxy", 3: "gdaki", 4: "gpi", 5: "efa-gda"}


def is_debug_line(line: str) -> bool:
    """A NCCL INFO line this module reads (the nccl-tests parser skips the other INFO lines)."""
    return "CCL version" in line or "GIN/Plugin: Assigned" in line


def host_of(line: str) -> str | None:
    m = _HOST_RE.match(line)
    return m.group(1) if m else None


def banner(line: str) -> tuple[str, str | None] | None:
    """(NCCL version, CUDA version or None) from a version banner, NCCL's or RCCL's; None for
    another line."""
    if m := BANNER_RE.search(line):
        return m.group(1), m.group(2)
    if m := RCCL_BANNER_RE.search(line):
        return m.group(1), None
    return None


def library_of(line: str) -> str | None:
    """ "RCCL" or "NCCL" for a version banner, by whose banner it is; None for another line."""
    if BANNER_RE.search(line):
        return "NCCL"
    return "RCCL" if RCCL_BANNER_RE.search(line) else None


def gin_backend(line: str) -> str | None:
    """The GIN backend an "Assigned plugin" line names, in `COLLECTIVE_BACKENDS` terms."""
    m = _GIN_RE.search(line)
    if m is None:
        return None
    by_type = _GIN_TYPES.get(int(m.group(2)))
    if by_type is not None:
        return by_type
    name = m.group(1).lower()
    return next((b for b in COLLECTIVE_BACKENDS if b.replace("-", "_") in name), name)
