"""A process group that never formed: PyTorch's TCPStore rendezvous, in the words of its errors.

* The store's host (rank 0, MASTER_ADDR) gave up waiting for the others:
  `torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3
  clients joined.` (`… waiting for workers. 1/2 workers joined.` in earlier releases).
* A rank could not reach the store: `torch.distributed.DistNetworkError: The client socket has
  timed out after 600000ms while trying to connect to (172.17.0.9, 46229).`

The rank that prints either only waited: the ranks that never joined, or the store it could not
reach, are the failure, and no line names them. The event stays a consequence on the rank that
printed it, and when nothing else was found the owner's reasons say what decides it: a rank not
launched or crashing before it connected, a wrong MASTER_ADDR or port (the job's), or a node that
never came up or a network that does not route between the nodes (the cluster's).
"""

from __future__ import annotations

import re
from typing import Any

from .owner import DECIDES

# Literals that bring a line to `decode` (see `lines.ANCHORS`).
ANCHORS = ("clients joined", "workers joined", "while trying to connect to")

_STORE = re.compile(r"waiting for (?:clients|workers)\. (\d+)/(\d+) (?:clients|workers) joined")
_CLIENT = re.compile(r"while trying to connect to \(([^,()\s]+), (\d+)\)")


def decode(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _STORE.search(body)
    if m is not None:
        joined, expected = int(m.group(1)), int(m.group(2))
        return "python_exception", {
            "tier": 3, "secondary": True, "rendezvous": True, "joined": joined,
            "expected": expected,
            "cause": f"{expected - joined} of {expected} ranks never joined the rendezvous store",
        }  # fmt: skip
    m = _CLIENT.search(body)
    if m is not None:
        return "python_exception", {
            "tier": 3, "secondary": True, "rendezvous": True, "store": f"{m.group(1)}:{m.group(2)}",
            "cause": f"could not reach the rendezvous store at {m.group(1)}:{m.group(2)}",
        }  # fmt: skip
    return None


def owner_reason(detail: dict[str, Any]) -> str:
    """What decides the owner of a rendezvous that never completed."""
    if "store" in detail:
        return (
            f"the process group never formed: this rank could not reach the rendezvous store at "
            f"{detail['store']}; {DECIDES}: the log of the rank that hosts it (rank 0, "
            "MASTER_ADDR) and whether this node can reach that address (a store that never "
            "started or an address only its own host can reach, such as a container's bridge "
            "address: customer; a node that never came up or a network that does not route "
            "between the nodes: provider)"
        )
    missing = detail["expected"] - detail["joined"]
    return (
        f"the process group never formed: {missing} of {detail['expected']} ranks never reached "
        f"the rendezvous store; {DECIDES}: those ranks' own logs (not launched, crashed before "
        "they connected, or a wrong MASTER_ADDR or port: customer; a node that never came up or "
        "a network that does not route to the store: provider)"
    )
