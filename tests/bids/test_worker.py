"""The real thing: a Celery worker consuming from Redis runs the notification end to end."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core import mail

from bids.models import SentNotification
from bids.services import bid_submit
from config.celery import app as celery_app
from tests.conftest import require_service
from tests.factories import BidFactory, CapacityRequestFactory, InvitationFactory

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def real_worker() -> Iterator[Any]:
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
            celery_app, pool="solo", perform_ping_check=False, queues=[queue], loglevel="WARNING"
        ) as worker:
            yield worker
    finally:
        celery_app.conf.task_default_queue = previous_queue
        celery_app.conf.task_always_eager = True


def _wait_for(predicate: Any, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_a_submitted_revision_reaches_the_buyer_through_the_worker(real_worker, buyer, provider):
    req = CapacityRequestFactory(buyer=buyer.org)
    InvitationFactory(request=req, provider=provider.org)
    bid = BidFactory(request=req, provider=provider.org)

    revision = bid_submit(bid=bid, user=provider.user)  # commits; on_commit sends to Redis

    key = f"bid-revision:{revision.pk}"
    assert _wait_for(lambda: SentNotification.objects.filter(key=key).exists()), (
        "the worker did not run the notification task"
    )
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    assert provider.org.name in mail.outbox[0].subject
