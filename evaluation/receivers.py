"""Re-scoring when what a request's bids are scored on changes (connected in `ready`)."""

from __future__ import annotations

from typing import Any

from bids.models import CapacityRequest
from evaluation.services import scoring_queue


def rescore(
    sender: type[CapacityRequest], *, capacity_request: CapacityRequest, **kwargs: Any
) -> None:
    scoring_queue(capacity_request=capacity_request)
