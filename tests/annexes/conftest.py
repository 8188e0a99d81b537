"""An awarded request: fixture, terms, acknowledgement with an exception, then the award."""

from __future__ import annotations

from typing import Any

import pytest

from acceptance.services.acknowledgements import acknowledgement_submit
from acceptance.services.award import request_award
from acceptance.services.fixtures import fixture_from_template
from bids.services import request_close
from contracts.defaults import DEFAULT_TERMS_TEMPLATE
from contracts.services.terms import terms_create
from engine.evidence.fixtures import DEFAULT_TEMPLATE


@pytest.fixture
def awarded(world: Any, buyer: Any, provider: Any) -> Any:
    fixture_from_template(
        capacity_request=world.request, user=buyer.user, template=DEFAULT_TEMPLATE
    )
    terms_create(capacity_request=world.request, user=buyer.user, template=DEFAULT_TERMS_TEMPLATE)
    acknowledgement_submit(
        bid=world.bid,
        user=provider.user,
        status="accepted_with_exceptions",
        exceptions=[{"text": "DCGM level 3 only: level 4 needs a maintenance window", "field": ""}],
    )
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    world.request.refresh_from_db()
    return world
