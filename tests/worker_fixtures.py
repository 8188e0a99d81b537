"""A real Celery worker (in a thread) consuming a private Redis queue: `real_worker`.

Registered for the whole suite from tests/conftest.py. Without a broker the tests that use it
skip locally and fail in CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from config.celery import app as celery_app
from config.celery import heavy_queue
from tests.ops.s3 import storage_env

ROOT = Path(__file__).resolve().parents[1]


def _redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def real_worker() -> Iterator[Any]:
    from tests.conftest import require_service

    broker = settings.CELERY_BROKER_URL
    require_service(bool(broker), "CELERY_BROKER_URL is not set, so there is no broker to test")
    require_service(_redis_reachable(broker), f"Redis is not reachable at {broker}")
    from celery.contrib.testing.worker import start_worker

    # A queue of our own, so a stray worker elsewhere cannot take these tasks.
    queue = f"test-{uuid.uuid4().hex[:8]}"
    previous_queue = celery_app.conf.task_default_queue
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    try:
        with start_worker(
            celery_app,
            pool="solo",
            perform_ping_check=False,
            queues=[queue, heavy_queue(queue)],  # both, as `make worker` does
            loglevel="WARNING",
        ) as worker:
            yield worker
    finally:
        celery_app.conf.task_default_queue = previous_queue
        celery_app.conf.task_always_eager = True
        end_other_database_sessions()


def end_other_database_sessions() -> None:
    """Sessions of finished threads outlive them; end them so the test DB can be dropped.
    Only this process's own test database: under xdist each worker has one (test_<name>_gw0,
    ...), and another worker's sessions are none of its business."""
    from django.db import OperationalError, connection

    if connection.vendor != "postgresql":
        return
    query = (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    try:
        with connection.cursor() as cursor:
            cursor.execute(query)
    except OperationalError:
        # This connection was itself one of the sessions an earlier call ended (one made
        # while this thread held another connection): open a new one and end the rest.
        connection.close()
        with connection.cursor() as cursor:
            cursor.execute(query)


def wait_for(predicate: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def start_worker_process(
    queue: str, log_path: Path, **env_overrides: str
) -> subprocess.Popen[bytes]:
    """A real `celery worker` subprocess (prefork, one child) on this test's PostgreSQL database,
    consuming `queue` and its heavy twin, in a session of its own so that a test can kill the
    whole worker (parent, pool child and any analysis child) with `os.killpg`. `env_overrides`
    replace the environment's settings (another broker, another cache)."""
    db = settings.DATABASES["default"]
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:"
            f"{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "CELERY_QUEUE": queue,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        **storage_env(),
        **env_overrides,
    }
    with log_path.open("a") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "prefork", "-c", "1",
             "-Q", f"{queue},{heavy_queue(queue)}", "--without-gossip", "--without-mingle",
             "--loglevel=INFO"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


def stop_worker_process(worker: subprocess.Popen[bytes]) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(timeout=20)


@pytest.fixture
def worker_process(tmp_path: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A real `celery worker` subprocess (prefork, one child) on this test's PostgreSQL database
    and a private Redis queue: for tests that kill its child mid-task. Its log is
    `tmp_path / "worker.log"`."""
    from django.db import connection

    from tests.conftest import require_service

    broker = settings.CELERY_BROKER_URL
    require_service(bool(broker) and _redis_reachable(broker), "no Redis broker to test with")
    require_service(connection.vendor == "postgresql", "a worker process needs PostgreSQL")
    queue = f"test-killed-{uuid.uuid4().hex[:8]}"
    worker = start_worker_process(queue, tmp_path / "worker.log")
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    try:
        assert wait_for(lambda: bool(children(worker.pid)), seconds=60), "no pool child"
        yield worker
    finally:
        celery_app.conf.task_default_queue = previous
        celery_app.conf.task_always_eager = True
        stop_worker_process(worker)
        end_other_database_sessions()


@pytest.fixture
def broker_away() -> Iterator[Callable[[], None]]:
    """The broker's address answers nothing (port 9 on this host has no listener). Yields a
    function that brings the broker back (tasks then run in-process, as in other tests)."""
    conf = celery_app.conf
    saved = conf.broker_write_url, conf.task_always_eager
    pools = celery_app._pool, celery_app.amqp._producer_pool

    def back() -> None:
        conf.broker_write_url, conf.task_always_eager = saved
        celery_app._pool, celery_app.amqp._producer_pool = pools

    # Senders connect with the write URL (it follows CELERY_BROKER_URL unless set).
    conf.broker_write_url, conf.task_always_eager = "redis://127.0.0.1:9/0", False
    celery_app._pool = celery_app.amqp._producer_pool = None  # new connections, to the new URL
    try:
        yield back
    finally:
        back()
