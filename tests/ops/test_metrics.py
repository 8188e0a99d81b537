"""/metrics as an operator's scraper reads it: guarded, in the Prometheus text format, and
carrying request latency, query counts, task durations, reaps and queue depth."""

from __future__ import annotations

import os
import re
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from annexes.models import AnnexJob, AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from core.jobs import reap_stuck_jobs
from core.metrics import queue_depths
from tests.conftest import require_service

pytestmark = pytest.mark.django_db
TOKEN = "scrape-token-for-tests"


def _scrape(client, settings) -> str:
    settings.METRICS_TOKEN = TOKEN
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def _value(text: str, name: str, **labels: str) -> float:
    """The sample `name{labels}` (labels in any order), 0 when it has not appeared yet."""
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.rindex("}")]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_a_render_shows_its_task_duration(
    awarded, buyer, client, settings, django_capture_on_commit_callbacks
):
    render = {"task": "annexes.tasks.render_annex", "kind": "annex", "outcome": "success"}
    before = _value(_scrape(client, settings), "clusterbid_task_duration_seconds_count", **render)
    with django_capture_on_commit_callbacks(execute=True):
        job = annex_request(
            capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user
        )
    job.refresh_from_db()
    assert job.status == AnnexJobStatus.DONE, job.error
    text = _scrape(client, settings)
    assert _value(text, "clusterbid_task_duration_seconds_count", **render) == before + 1
    assert _value(text, "clusterbid_task_duration_seconds_sum", **render) > 0


def test_requests_are_timed_and_their_queries_counted_by_view(client, settings):
    labels = {"view": "healthz", "method": "GET", "status": "2xx"}
    before = _value(
        _scrape(client, settings), "clusterbid_http_request_duration_seconds_count", **labels
    )
    assert client.get("/healthz").status_code == 200
    text = _scrape(client, settings)
    assert _value(text, "clusterbid_http_request_duration_seconds_count", **labels) == before + 1
    # /healthz makes one query: it lands in the one-query bucket and not below.
    assert _value(text, "clusterbid_http_request_queries_bucket", view="healthz", le="1.0") >= 1
    assert _value(text, "clusterbid_http_request_queries_bucket", view="healthz", le="0.0") == 0


def test_a_reaped_job_is_counted(awarded, buyer, client, settings):
    before = _value(_scrape(client, settings), "clusterbid_jobs_reaped_total", app="annex renders")
    job = annex_request(capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user)
    AnnexJob.objects.filter(pk=job.pk).update(
        status=AnnexJobStatus.RENDERING,
        started_at=timezone.now() - timedelta(seconds=settings.JOB_TIME_LIMIT_SECONDS + 600),
    )
    assert reap_stuck_jobs()["annex renders"] == 1
    text = _scrape(client, settings)
    assert _value(text, "clusterbid_jobs_reaped_total", app="annex renders") == before + 1


def test_only_the_token_or_this_host_may_scrape(client, settings):
    settings.METRICS_TOKEN = TOKEN
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 404
    assert client.get("/metrics").status_code == 200  # the test client calls from 127.0.0.1


def test_queue_depth_counts_what_waits_on_each_queue(settings):
    url = os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/0"
    url = url.rsplit("/", 1)[0] + "/15"  # a database no worker reads
    try:
        reachable = bool(redis.Redis.from_url(url, socket_connect_timeout=2).ping())
    except redis.RedisError:
        reachable = False
    require_service(reachable, f"Redis at {url}")
    settings.CELERY_BROKER_URL = url
    client = redis.Redis.from_url(url)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    client.delete(queue, f"{queue}-heavy", f"{queue}\x06\x163")
    try:
        client.rpush(queue, b"a", b"b")
        client.rpush(f"{queue}\x06\x163", b"c")  # a message at a lower priority step
        client.rpush(f"{queue}-heavy", b"d")
        assert queue_depths() == {queue: 3, f"{queue}-heavy": 1}
    finally:
        client.delete(queue, f"{queue}-heavy", f"{queue}\x06\x163")
        client.close()
