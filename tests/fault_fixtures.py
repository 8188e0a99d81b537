"""A `redis-server` of a test's own (broker and cache) and real `celery worker` processes on it:
for tests that stop Redis or kill a worker outright without harming anyone else's."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from django.db import connection

from config.celery import app as celery_app
from tests.conftest import require_service
from tests.worker_fixtures import (
    children,
    end_other_database_sessions,
    start_worker_process,
    stop_worker_process,
    wait_for,
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A `redis-server` of the test's own, without persistence: a restart loses what it held,
    as a crashed Redis without a volume would."""

    def __init__(self, binary: str, port: int, log: Path) -> None:
        self.binary, self.port, self.log = binary, port, log
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--daemonize", "no"],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        assert wait_for(self.answers, seconds=20), self.log.read_text()[-2000:]

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=20)
            self.process = None
        assert not self.answers()

    def answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url(0), socket_connect_timeout=1).ping())
        except redis.RedisError:
            return False


@pytest.fixture
def private_redis(tmp_path: Path, settings: Any) -> Iterator[RedisServer]:
    """Broker and cache on a Redis of this test's own; tasks are sent, not run in-process."""
    binary = shutil.which("redis-server")
    require_service(binary is not None, "redis-server is not installed")
    require_service(connection.vendor == "postgresql", "worker processes need PostgreSQL")
    assert binary is not None
    server = RedisServer(binary, _free_port(), tmp_path / "redis.log")
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": server.url(2),
        }
    }
    conf = celery_app.conf
    saved = (conf.broker_url, conf.broker_write_url, conf.broker_read_url)
    saved_queue, saved_eager = conf.task_default_queue, conf.task_always_eager
    pools = celery_app._pool, celery_app.amqp._producer_pool
    conf.broker_url = conf.broker_write_url = conf.broker_read_url = server.url(0)
    conf.task_default_queue, conf.task_always_eager = "faults", False
    celery_app._pool = celery_app.amqp._producer_pool = None  # connect to the new address
    try:
        yield server
    finally:
        conf.broker_url, conf.broker_write_url, conf.broker_read_url = saved
        conf.task_default_queue, conf.task_always_eager = saved_queue, saved_eager
        celery_app._pool, celery_app.amqp._producer_pool = pools
        server.stop()


@dataclass
class Workers:
    redis: RedisServer
    log: Path
    running: list[subprocess.Popen[bytes]]

    def start(self) -> subprocess.Popen[bytes]:
        worker = start_worker_process(
            "faults",
            self.log,
            CELERY_BROKER_URL=self.redis.url(0),
            CACHE_URL=self.redis.url(2),
        )
        self.running.append(worker)
        assert wait_for(lambda: bool(children(worker.pid)), seconds=60), self.tail()
        return worker

    def kill(self, worker: subprocess.Popen[bytes]) -> None:
        """SIGKILL to the worker's whole session, as the OOM killer or a lost node would."""
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=20)
        self.running.remove(worker)

    def tail(self) -> str:
        return self.log.read_text()[-4000:] if self.log.exists() else ""


@pytest.fixture
def workers(private_redis: RedisServer, tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(private_redis, tmp_path / "worker.log", [])
    try:
        yield pool
    finally:
        for worker in list(pool.running):
            stop_worker_process(worker)
        end_other_database_sessions()
