"""What the bid lifecycle tells the layers above it, so that bids never imports them.

Receivers are connected in the receiving app's `AppConfig.ready()`; `.importlinter` keeps the
imports pointing down.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import Signal

from bids.models import Bid, CapacityRequest
from core.errors import Conflict, TooBusy, refusal_add
from core.lifecycle import MoveRefused


class _SubmitParts:
    """The layers above, asked in turn inside `bid_submit` (connected by dispatch uid in their
    `AppConfig.ready()`, as for a signal). Unlike a signal's `send`, every receiver is asked
    even after one refuses, and nothing is logged: `frozen_parts` answers every refusal to the
    provider and raises anything else."""

    def __init__(self) -> None:
        self._receivers: dict[str, Callable[..., Any]] = {}

    def connect(
        self, receiver: Callable[..., Any], *, dispatch_uid: str, weak: bool = True
    ) -> None:
        self._receivers[dispatch_uid] = receiver  # module-level functions: held strongly

    def disconnect(self, *, dispatch_uid: str) -> None:
        self._receivers.pop(dispatch_uid, None)

    def ask(self, *, bid: Bid) -> list[Any]:
        """Each receiver's answer in connection order: what it returned, or what it raised."""
        outcomes: list[Any] = []
        for receiver in list(self._receivers.values()):
            try:
                outcomes.append(receiver(sender=Bid, bid=bid))
            except Exception as exc:  # handed to frozen_parts, which raises all but refusals
                outcomes.append(exc)
        return outcomes


# Asked inside `bid_submit`, before the revision is frozen, with `bid`. A receiver may refuse the
# submit by raising ValidationError, named as the caller should read it (the questionnaire names
# answers `answers.<question key>`); every receiver is asked, and the refusals of all of them
# come back as one. It returns a dict of parts to freeze with the revision (today only
# {"questionnaire": snapshot}).
bid_submitting = _SubmitParts()

# Sent once a change to what the request's bids are scored on has committed, with
# `capacity_request`: a revision submitted or withdrawn, handoff terms revised, a fixture
# acknowledged.
scoring_inputs_changed = Signal()


# Refusals that answer with a status of their own (409, 429, 403) are raised as they are, never
# merged into the submit's field errors.
_RAISED_AS_IS = (Conflict, TooBusy, MoveRefused)


@dataclass(frozen=True)
class FrozenParts:
    """What the receivers freeze with the revision, and their refusals by field."""

    parts: dict[str, Any] = field(default_factory=dict)
    refusals: dict[str, list[str]] = field(default_factory=dict)


def frozen_parts(*, bid: Bid) -> FrozenParts:
    """What every `bid_submitting` receiver adds to the revision, and every field error they
    refuse it with. Any other exception a receiver raises is raised here, the first one first."""
    found = FrozenParts()
    raised: Exception | None = None
    for outcome in bid_submitting.ask(bid=bid):
        if isinstance(outcome, ValidationError) and not isinstance(outcome, _RAISED_AS_IS):
            refusal_add(found.refusals, outcome)
        elif isinstance(outcome, Exception):
            raised = raised or outcome
        elif isinstance(outcome, dict):
            found.parts.update(outcome)
    if raised is not None:
        raise raised
    return found


def scoring_inputs_changed_on_commit(*, capacity_request: CapacityRequest) -> None:
    transaction.on_commit(
        lambda: scoring_inputs_changed.send(
            sender=CapacityRequest, capacity_request=capacity_request
        )
    )
