"""A worker process killed with SIGKILL in the middle of a render (the OOM killer, a deploy):
the job is not lost and does not stay "rendering". The pool's parent sees its child die, the
task goes back on the queue (acks_late, reject_on_worker_lost), a new child renders it, and the
annex is issued once. A real `celery worker` subprocess on PostgreSQL and Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from annexes.models import Annex, AnnexJob, AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from config.celery import app as celery_app
from tests.conftest import require_service
from tests.worker_fixtures import _redis_reachable, end_other_database_sessions, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


@pytest.fixture
def worker_process(tmp_path):
    broker = settings.CELERY_BROKER_URL
    require_service(bool(broker) and _redis_reachable(broker), "no Redis broker to test with")
    require_service(connection.vendor == "postgresql", "a worker process needs PostgreSQL")
    db = settings.DATABASES["default"]
    queue = f"test-killed-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "CELERY_QUEUE": queue,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
    }
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "prefork", "-c", "1",
         "-Q", queue, "--without-gossip", "--without-mingle", "--loglevel=INFO"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    try:
        assert wait_for(lambda: bool(_children(worker.pid)), seconds=60), "no pool child"
        yield worker
    finally:
        celery_app.conf.task_default_queue = previous
        celery_app.conf.task_always_eager = True
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        log.close()
        end_other_database_sessions()


def test_a_render_whose_worker_is_killed_mid_task_is_rendered_once(
    worker_process, awarded, buyer, tmp_path
):
    job = annex_request(capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user)

    def rendering() -> bool:
        job.refresh_from_db()
        return job.status in (AnnexJobStatus.RENDERING, AnnexJobStatus.DONE)

    assert wait_for(rendering, seconds=60), "the worker never started the render"
    assert job.status == AnnexJobStatus.RENDERING, "rendered before it could be killed"
    (child,) = _children(worker_process.pid)
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
