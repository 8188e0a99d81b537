"""A node's own hardware failing, in the words of the kernel and the driver, not the job's:

* a network link that went down: the NIC driver's `Link down` for an interface, or mlx5's port
  module event for a cable or transceiver pulled out
  (`mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged`);
* a GPU the driver lost or could not bring up: `nvidia-smi`'s `Unable to determine the device
  handle for GPU0000:3B:00.0: Unknown Error`, the kernel's `NVRM: GPU 0000:3b:00.0:
  RmInitAdapter failed!`.

Each is the cluster's, whatever the job was doing.
"""

from __future__ import annotations

import re
from typing import Any

from .model import INFRASTRUCTURE
from .pci import pci_key

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = ("Link down", "Cable unplugged", "device handle for GPU", "RmInitAdapter failed")

_DRIVER = r"(?:mlx[45]_core|bnxt_en|ice|i40e|ixgbe|efa)"
_PCI = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_LINK_DOWN = re.compile(_DRIVER + " " + _PCI + r"(?: ([\w.-]+))?: Link down\b")
_UNPLUGGED = re.compile(
    _DRIVER + " (" + _PCI + r").*?Port module event: module (\d+), Cable unplugged"
)


_HANDLE = re.compile(r"Unable to determine the device handle for GPU ?([0-9A-Fa-f:.]+): (.+)")
_RM_INIT = re.compile(r"NVRM: GPU ([0-9A-Fa-f:.]+): RmInitAdapter failed")


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _HANDLE.search(body)
    if m is not None:
        detail = _detail(f"GPU {m.group(1)} lost: the driver has no handle for it ({m.group(2)})")
        detail["category_reason"] = "the GPU driver lost a GPU: the node's hardware"
        return "gpu_lost", detail | {"pci": pci_key(m.group(1))}
    m = _RM_INIT.search(body)
    if m is not None:
        detail = _detail(f"GPU {m.group(1)} failed to initialise (RmInitAdapter failed)")
        detail["category_reason"] = "the GPU driver could not bring a GPU up: the node's hardware"
        return "gpu_lost", detail | {"pci": pci_key(m.group(1))}
    m = _LINK_DOWN.search(body)
    if m is not None:
        where = f" ({m.group(1)})" if m.group(1) else ""
        return "link_down", _detail(f"network link down{where}", tier=2)
    m = _UNPLUGGED.search(body)
    if m is not None:
        cause = f"cable unplugged from module {m.group(2)} of {m.group(1)}"
        return "link_down", _detail(cause, tier=2)
    return None


def _detail(cause: str, *, tier: int = 0) -> dict[str, Any]:
    # A link goes down and up at boot and in maintenance: weak evidence, the cause when nothing
    # causal follows (a link lost mid-run makes NCCL's transport errors, the cluster's too).
    return {
        "tier": tier,
        "cause": cause,
        "category": INFRASTRUCTURE,
        "category_reason": "the kernel's NIC driver reports the node's network link down",
    }
