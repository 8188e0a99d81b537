"""One spelling of a GPU's PCI address, whichever tool printed it."""

from __future__ import annotations


def pci_key(text: str) -> str | None:
    """Canonical `bus:device` (lower hex, domain dropped when zero) for any PCI spelling.

    `PCI:0000:91:00`, `00000000:91:00.0`, `0000:91:00.0` and NCCL's busId `91000` all give `91:00`.
    """
    text = text.strip().lower().removeprefix("pci:")
    parts = text.split(":")
    try:
        if len(parts) == 1:  # NCCL's packed busId: (domain << 20) | (bus << 12) | (dev << 4) | fn
            value = int(parts[0], 16)
            domain, bus, dev = value >> 20, (value >> 12) & 0xFF, (value >> 4) & 0xFF
        elif len(parts) == 2:
            domain, bus, dev = 0, int(parts[0], 16), int(parts[1].split(".")[0], 16)
        else:
            domain, bus, dev = (
                int(parts[-3], 16),
                int(parts[-2], 16),
                int(parts[-1].split(".")[0], 16),
            )
    except ValueError:
        return None
    key = f"{bus:02x}:{dev:02x}"
    return f"{domain:x}:{key}" if domain else key
