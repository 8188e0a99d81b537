"""A real Celery worker renders the annex from Redis, end to end."""

from __future__ import annotations

import pytest

from annexes.models import AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from tests.worker_fixtures import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_renders_and_issues_version_1(real_worker, awarded, buyer):
    job = annex_request(capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user)

    def done() -> bool:
        job.refresh_from_db()
        return job.status in (AnnexJobStatus.DONE, AnnexJobStatus.FAILED)

    assert wait_for(done, seconds=90), "the worker did not finish the render"
    assert job.status == AnnexJobStatus.DONE, job.error
    with job.annex.pdf.open("rb") as fh:
        assert fh.read(5) == b"%PDF-"
    assert job.annex.version == 1
