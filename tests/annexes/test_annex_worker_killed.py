"""A worker process killed with SIGKILL in the middle of a render (the OOM killer, a deploy):
the job is not lost and does not stay "rendering". The pool's parent sees its child die, the
task goes back on the queue (acks_late, reject_on_worker_lost), a new child renders it, and the
annex is issued once. A real `celery worker` subprocess on PostgreSQL and Redis."""

from __future__ import annotations

import os
import signal
import time

import pytest

from annexes.models import Annex, AnnexJob, AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from tests.worker_fixtures import children, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_render_whose_worker_is_killed_mid_task_is_rendered_once(
    worker_process, awarded, buyer, tmp_path
):
    job = annex_request(capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user)

    def rendering() -> bool:
        job.refresh_from_db()
        return job.status in (AnnexJobStatus.RENDERING, AnnexJobStatus.DONE)

    assert wait_for(rendering, seconds=60), "the worker never started the render"
    assert job.status == AnnexJobStatus.RENDERING, "rendered before it could be killed"
    (child,) = children(worker_process.pid)
    os.kill(child, signal.SIGKILL)
    killed_at = time.monotonic()

    def finished() -> bool:
        job.refresh_from_db()
        return job.status in (AnnexJobStatus.DONE, AnnexJobStatus.FAILED)

    assert wait_for(finished, seconds=120), (tmp_path / "worker.log").read_text()[-3000:]
    assert job.status == AnnexJobStatus.DONE, job.error
    assert job.attempts >= 2  # the killed attempt, then the re-delivered one
    assert time.monotonic() - killed_at < 120
    assert Annex.objects.filter(request=awarded.request, kind=AnnexKind.CONTRACT).count() == 1
    assert AnnexJob.objects.get(pk=job.pk).annex is not None
