"""A real Celery worker analyses an uploaded failed-run bundle from Redis, end to end."""

from __future__ import annotations

import pytest

from incidents import services
from incidents.models import FailedRunState
from tests.incidents.helpers import accept, scenario_upload
from tests.worker_fixtures import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_names_rank_137(world, buyer, provider, request):
    done = accept(world, buyer, provider)
    # The worker starts after the world exists, so only the upload's task goes through Redis.
    request.getfixturevalue("real_worker")
    run = services.failed_run_upload(
        reservation=done.reservation, user=provider.user, uploads=[scenario_upload()]
    )

    def analysed() -> bool:
        run.refresh_from_db()
        return not run.in_progress

    assert wait_for(analysed, seconds=60), f"the worker left the run {run.state}"
    assert run.state == FailedRunState.ANALYSED, run.error
    assert run.analysis["first_failure"]["rank"] == 137 and run.attempts == 1
