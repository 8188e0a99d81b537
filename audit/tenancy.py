"""What audit cannot know from below: which requests an organisation is invited to, and which
requests still hide their bids from their buyer. `bids` (a layer up) registers both when it
loads; until then shared entries reach only the buyer and sealed ones nobody but the bidder."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# org id -> request ids (a list, or a values("pk") QuerySet used as a subquery)
RequestIds = Callable[[int], Iterable[Any]]


@dataclass
class _Hooks:
    invited_to: RequestIds = lambda org_id: []
    sealed_for_buyer: RequestIds = lambda org_id: []


hooks = _Hooks()


def register(*, invited_to: RequestIds, sealed_for_buyer: RequestIds) -> None:
    """`invited_to(org)`: the published requests a provider is invited to.
    `sealed_for_buyer(org)`: that buyer's requests whose bids are still sealed now."""
    hooks.invited_to = invited_to
    hooks.sealed_for_buyer = sealed_for_buyer
