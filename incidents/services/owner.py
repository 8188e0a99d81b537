"""Who an incident opened by hand points to, and why, before any analysis names a cause."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import failures
from incidents.models import Signal

#: The owner reason an incident opened by hand carries until a failed run is attached.
NO_ANALYSIS = "No analysis yet: attach a failed run's to name the first failing rank."


def hand_owner(signal: str, party: str) -> tuple[str, list[str]]:
    """Who an incident opened by hand points to, and why, until an analysis is attached."""
    if signal == Signal.SLOW_JOB:
        return "undetermined", [
            "A slow job alone does not say whether the job or the cluster is at fault.",
            NO_ANALYSIS,
        ]
    if signal == Signal.OTHER:
        seen = f"Opened by the {party} from its own observation, on nodes the provider runs."
    else:
        seen = f"The provider's own signal ({Signal(signal).label.lower()}) on nodes it runs."
    return "provider", [seen, NO_ANALYSIS]


def owner_with_analysis(
    *, owner: str, reasons: list[str], analysis: Mapping[str, Any]
) -> tuple[str, list[str]]:
    """An incident's owner and reasons once a failed run's analysis is attached. Where the
    analysis settles an owner it replaces the guess from the opening signal, and its reasons
    come first; the "no analysis yet" hint goes, since it would read false."""
    kept = [r for r in reasons if r != NO_ANALYSIS]
    found = failures.contract_owner(analysis.get("suggested_owner"))
    if found == failures.UNDETERMINED:
        return owner, kept
    return found, [*(str(r) for r in analysis.get("owner_reasons") or []), *kept]
