"""A real Celery worker (in a thread) consuming a private Redis queue: `real_worker`.

Registered for the whole suite from tests/conftest.py. Without a broker the tests that use it
skip locally and fail in CI.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings

from config.celery import app as celery_app
from config.celery import heavy_queue


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
