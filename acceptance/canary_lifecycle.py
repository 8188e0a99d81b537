"""A release canary's lifecycle: the provider's team uploads, retries and withdraws its evidence
until the change window opens; the buyer reads it and answers on the change (delivery).

The canary is the provider's proof, so only the provider changes its evidence; the window's
start closes it, so what the buyer reviewed is what was rolled out."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from acceptance.models import Canary
from bids.lifecycle import PROVIDER_TEAM, ROLE_LABELS
from core.lifecycle import Actor, Decision, Lifecycle, Move
from orgs.selectors import actor_for

OPEN = "open"
CLOSED = "closed"


def canary_status(canary: Canary) -> str:
    return OPEN if timezone.now() < canary.closes_at else CLOSED


CANARY: Lifecycle[Canary] = Lifecycle(
    name="canary",
    status_of=canary_status,
    status_label=lambda c: {OPEN: "open", CLOSED: "closed by its change window"}[canary_status(c)],
    role_labels=ROLE_LABELS,
    moves=[
        Move("evidence", "Upload, retry or withdraw canary evidence", "provider", PROVIDER_TEAM,
             frozenset({OPEN}), verb="given new evidence"),
    ],
)  # fmt: skip


def canary_actor(canary: Canary, user: Any) -> Actor:
    reservation = canary.reservation
    return actor_for(
        user=user,
        parties={"buyer": reservation.request.buyer_id, "provider": reservation.bid.provider_id},
    )


def canary_move(canary: Canary, name: str, *, user: Any) -> Decision[Canary]:
    """Raise `MoveRefused` unless `user` may make this move on the canary now."""
    return CANARY.allow(canary, name, actor=canary_actor(canary, user))


def canary_decisions(canary: Canary, *, user: Any) -> dict[str, Decision[Canary]]:
    return CANARY.decisions(canary, actor=canary_actor(canary, user))
