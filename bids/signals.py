"""What the bid lifecycle tells the layers above it, so that bids never imports them.

Receivers are connected in the receiving app's `AppConfig.ready()`; `.importlinter` keeps the
imports pointing down.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import Signal

from bids.models import Bid, CapacityRequest

# Sent inside `bid_submit`, before the revision is frozen, with `bid`. A receiver may refuse the
# submit by raising ValidationError, and returns a dict of parts to freeze with the revision
# (today only {"questionnaire": snapshot}).
bid_submitting = Signal()

# Sent once a change to what the request's bids are scored on has committed, with
# `capacity_request`: a revision submitted or withdrawn, handoff terms revised, a fixture
# acknowledged.
scoring_inputs_changed = Signal()


def frozen_parts(*, bid: Bid) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    for _receiver, contribution in bid_submitting.send(sender=Bid, bid=bid):
        if isinstance(contribution, dict):
            parts.update(contribution)
    return parts


def scoring_inputs_changed_on_commit(*, capacity_request: CapacityRequest) -> None:
    transaction.on_commit(
        lambda: scoring_inputs_changed.send(
            sender=CapacityRequest, capacity_request=capacity_request
        )
    )
