"""A network link that went down, in the kernel's own words: the NIC driver's `Link down` for an
interface, or mlx5's port module event for a cable or transceiver pulled out
(`mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged`). Either is the cluster's
fabric, whatever the job was doing."""

from __future__ import annotations

import re
from typing import Any

from .model import INFRASTRUCTURE

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = ("Link down", "Cable unplugged")

_DRIVER = r"(?:mlx[45]_core|bnxt_en|ice|i40e|ixgbe|efa)"
_PCI = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_LINK_DOWN = re.compile(_DRIVER + " " + _PCI + r"(?: ([\w.-]+))?: Link down\b")
_UNPLUGGED = re.compile(
    _DRIVER + " (" + _PCI + r").*?Port module event: module (\d+), Cable unplugged"
)


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _LINK_DOWN.search(body)
    if m is not None:
        where = f" ({m.group(1)})" if m.group(1) else ""
        return "link_down", _detail(f"network link down{where}")
    m = _UNPLUGGED.search(body)
    if m is not None:
        return "link_down", _detail(f"cable unplugged from module {m.group(2)} of {m.group(1)}")
    return None


def _detail(cause: str) -> dict[str, Any]:
    return {
        "tier": 0,
        "cause": cause,
        "category": INFRASTRUCTURE,
        "category_reason": "the kernel's NIC driver reports the node's network link down",
    }
