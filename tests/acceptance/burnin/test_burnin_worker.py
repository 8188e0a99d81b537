"""The real thing: an uploaded file is parsed and checked by a Celery worker consuming Redis."""

from __future__ import annotations

import pytest

from acceptance.models import EvidenceState
from tests.acceptance.burnin.helpers import award, upload
from tests.worker_fixtures import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_an_upload_is_parsed_and_checked_by_the_worker(world, buyer, provider, request):
    done = award(world, buyer)
    # The worker starts after the world exists, so only the upload's tasks go through Redis.
    request.getfixturevalue("real_worker")

    evidence = upload(
        done.run, provider.user, "burnin/nccl-tests/all_reduce_2node_slow.txt"
    ).evidence

    def parsed_and_checked() -> bool:
        evidence.refresh_from_db()
        done.run.refresh_from_db()
        return evidence.state == EvidenceState.PARSED and done.run.checks_current

    assert wait_for(parsed_and_checked, seconds=30), (
        f"the worker left the file {evidence.state} and the checks {done.run.checks_state}"
    )
    assert evidence.kind == "nccl-tests" and evidence.parsed["collective"] == "all_reduce"
    busbw = done.run.checks.get(name="nccl-tests all_reduce: large-message busbw")
    assert busbw.status == "fail" and busbw.evidence_id == evidence.pk
