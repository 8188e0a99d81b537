"""Who a failure belongs to, in the handoff terms' words (the responsibility matrix).

The customer owns the job: a memory-cgroup OOM of its own limit, a size mismatch between ranks,
a bug in the training code, bad data. The provider owns what sits below it: Xid, ECC, a link
that went down, a node that failed. Anything else is undetermined, and says what evidence would
decide it.
"""

from __future__ import annotations

PROVIDER = "provider"
CUSTOMER = "customer"
UNDETERMINED = "undetermined"
OWNERS = (PROVIDER, CUSTOMER, UNDETERMINED)
DECIDES = "what would decide it"

# The words analyses were stored with before the terms' words were used.
_LEGACY = {"infrastructure": PROVIDER, "application": CUSTOMER}


def contract_owner(value: object) -> str:
    """A stored owner in the terms' words; an old or unknown value reads as such or undetermined."""
    text = str(value or "").strip().lower()
    text = _LEGACY.get(text, text)
    return text if text in OWNERS else UNDETERMINED
