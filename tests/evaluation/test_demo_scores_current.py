"""The demo's comparisons are current on the first visit: no 'outdated' banner before anyone
has done anything."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from bids.models import CapacityRequest
from evaluation.comparison import CURRENT, NO_BIDS, SEALED, comparison_state

# Real commits, as `make run` makes them: each part's scoring runs when that part commits.
pytestmark = pytest.mark.django_db(transaction=True)


def test_every_seeded_comparison_is_current():
    call_command("seed_demo", verbosity=0)
    states = {
        req.title: comparison_state(capacity_request=req)[0]
        for req in CapacityRequest.objects.exclude(status="draft")
    }
    assert states and all(s in (CURRENT, NO_BIDS, SEALED) for s in states.values()), states
