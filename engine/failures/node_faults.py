"""A node's own hardware failing, in the words of the kernel and the driver, not the job's:

* a network link that went down: the NIC driver's `Link down` for an interface, or mlx5's port
  module event for a cable or transceiver pulled out
  (`mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged`);
* a GPU the driver lost or could not bring up: `nvidia-smi`'s `Unable to determine the device
  handle for GPU0000:3B:00.0: Unknown Error`, the kernel's `NVRM: GPU 0000:3b:00.0:
  RmInitAdapter failed!`;
* the host itself failing: `Kernel panic - not syncing: …` (the node went down), an
  uncorrectable memory error the EDAC driver reports (`EDAC MC1: 1 UE memory read error …`), a
  machine check (`mce: [Hardware Error]: …`, weak: most are corrected), a CPU the kernel's
  watchdog found stuck (`watchdog: BUG: soft lockup - CPU#12 stuck for 22s!`, `Watchdog
  detected hard LOCKUP on cpu 12`, weak: a stalled filesystem or driver can cause one).

Each is the cluster's, whatever the job was doing.
"""

from __future__ import annotations

import re
from typing import Any

from .model import INFRASTRUCTURE
from .pci import pci_key

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = (
    "Link down",
    "Cable unplugged",
    "device handle for GPU",
    "RmInitAdapter failed",
    "Kernel panic",
    " UE memory",
    "Hardware Error]",
    "LOCKUP",
    "soft lockup",
)

_DRIVER = r"(?:mlx[45]_core|bnxt_en|ice|i40e|ixgbe|efa)"
_PCI = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_LINK_DOWN = re.compile(_DRIVER + " " + _PCI + r"(?: ([\w.-]+))?: Link down\b")
_UNPLUGGED = re.compile(
    _DRIVER + " (" + _PCI + r").*?Port module event: module (\d+), Cable unplugged"
)


_PANIC = re.compile(r"Kernel panic - not syncing: ?(.*)")
_EDAC_UE = re.compile(r"EDAC (\w+): (\d+) UE ")
_MCE = re.compile(r"mce: \[Hardware Error\]: (.+)")
_LOCKUP = re.compile(r"soft lockup - CPU#(\d+) stuck for (\w+)|hard LOCKUP on cpu (\d+)")
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
    found = _host(body)
    if found is not None:
        return found
    m = _LINK_DOWN.search(body)
    if m is not None:
        where = f" ({m.group(1)})" if m.group(1) else ""
        return "link_down", _detail(f"network link down{where}", tier=2)
    m = _UNPLUGGED.search(body)
    if m is not None:
        cause = f"cable unplugged from module {m.group(2)} of {m.group(1)}"
        return "link_down", _detail(cause, tier=2)
    return None


def _host(body: str) -> tuple[str, dict[str, Any]] | None:
    """The host's own kernel reporting its CPU, memory or itself failing."""
    m = _PANIC.search(body)
    if m is not None:
        why = m.group(1).strip()[:120]
        detail = _detail("the node's kernel panicked" + (f" ({why})" if why else ""))
        if "out of memory" in why.lower():
            # panic_on_oom: the job's memory use and the site's setting together; no side.
            del detail["category"], detail["category_reason"]
            return "node_crash", detail | {"tier": 1}
        return "node_crash", detail | {"category_reason": "the node's kernel stopped: the node"}
    m = _EDAC_UE.search(body)
    if m is not None:
        detail = _detail(f"uncorrectable host memory error ({m.group(1)})")
        return "host_memory", detail | {"category_reason": "the node's own memory failed"}
    m = _MCE.search(body)
    if m is not None:
        detail = _detail(f"machine check: {m.group(1).strip()[:120]}", tier=2)
        return "host_memory", detail | {"category_reason": "the node's CPU or memory reported "
                                                          "a hardware error"}  # fmt: skip
    m = _LOCKUP.search(body)
    if m is not None:
        cpu = m.group(1) or m.group(3)
        what = "soft lockup" if m.group(1) else "hard lockup"
        detail = _detail(f"CPU {cpu} stuck ({what})", tier=2)
        return "node_hang", detail | {"category_reason": "the node's kernel found a CPU stuck"}
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
