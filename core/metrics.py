"""Prometheus metrics: what an operator graphs and alerts on.

Requests (latency and database queries by view), Celery tasks (duration and outcome by task,
with the job kind an annex, analysis or reconciliation belongs to), stuck jobs reaped, and, read
when scraped, each queue's depth and the tasks waiting for the broker. `ops.views.metrics`
serves them in the Prometheus text format.

Several processes (gunicorn workers, Celery workers) each keep their own figures. Set
`PROMETHEUS_MULTIPROC_DIR` to a folder they all share, emptied when the service starts, and
each process writes its figures there for the scrape to add up (prometheus_client's
multiprocess mode). Without it, as under `make run`, the one process reports its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from celery import current_app as celery_app
from celery.signals import task_failure, task_postrun, task_prerun
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

from core.models import WaitingTask

REQUEST_SECONDS = Histogram(
    "clusterbid_http_request_duration_seconds",
    "Time to answer a request, by view name, method and status class.",
    ["view", "method", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
REQUEST_QUERIES = Histogram(
    "clusterbid_http_request_queries",
    "Database queries one request made, by view name.",
    ["view"],
    buckets=(0, 1, 2, 5, 10, 20, 50, 100, 200),
)
TASK_SECONDS = Histogram(
    "clusterbid_task_duration_seconds",
    "Time a Celery task ran, by task name, the job kind it serves and its outcome.",
    ["task", "kind", "outcome"],
    buckets=(0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600),
)
TASK_FAILURES = Counter(
    "clusterbid_task_failures_total",
    "Celery tasks that raised, by task name and job kind.",
    ["task", "kind"],
)
JOBS_REAPED = Counter(
    "clusterbid_jobs_reaped_total",
    "Jobs failed by the reaper after their worker was lost or they ran past their limit.",
    ["app"],
)

#: The job kinds whose throughput an operator watches, by the task that does the work.
TASK_KINDS = {
    "annexes.tasks.render_annex": "annex",
    "incidents.tasks.analyse_failed_run": "analysis",
    "billing.tasks.reconcile_usage": "reconciliation",
    "billing.tasks.inspect_usage": "bill_inspection",
    "acceptance.tasks.recheck_run": "burnin_recheck",
    "acceptance.tasks.parse_evidence": "evidence_parse",
    "evaluation.tasks.score_request": "scoring",
    "observed.tasks.parse_observed": "observed_parse",
}


def task_kind(name: str) -> str:
    return TASK_KINDS.get(name, "other")


def exposition() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(QueueCollector())
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


class QueueCollector(Collector):
    """Read when scraped: messages waiting on each Celery queue (Redis list lengths) and tasks
    stored while the broker was away (`core.WaitingTask`) with the oldest one's age."""

    def describe(self) -> list[GaugeMetricFamily]:
        return []  # registering must not query: the tables may not exist yet

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily(
            "clusterbid_queue_depth", "Messages waiting on a Celery queue.", labels=["queue"]
        )
        for queue, count in queue_depths().items():
            depth.add_metric([queue], count)
        yield depth
        waiting = WaitingTask.objects.order_by("created_at").values_list("created_at", flat=True)
        oldest = waiting.first()
        yield GaugeMetricFamily(
            "clusterbid_tasks_waiting_for_broker",
            "Tasks stored because the broker was unreachable, not yet sent.",
            value=waiting.count(),
        )
        age = 0.0 if oldest is None else max(time.time() - oldest.timestamp(), 0.0)
        yield GaugeMetricFamily(
            "clusterbid_tasks_waiting_for_broker_oldest_seconds",
            "Age of the oldest task waiting for the broker (0 when none waits).",
            value=age,
        )


def queue_depths() -> dict[str, int]:
    """Each queue's waiting messages, for a Redis broker; empty when tasks run in-process."""
    url = settings.CELERY_BROKER_URL
    if not url or not url.startswith(("redis://", "rediss://")):
        return {}
    import redis  # the broker's client, present whenever a Redis broker is configured

    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    depths: dict[str, int] = {}
    try:
        for queue in celery_app.conf.task_queues or ():
            # kombu's Redis transport keeps one list per priority step beside the plain name.
            keys = [queue.name] + [f"{queue.name}\x06\x16{p}" for p in (3, 6, 9)]
            depths[queue.name] = sum(int(client.llen(key)) for key in keys)
    except redis.RedisError:
        return {}
    finally:
        client.close()
    return depths


if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    REGISTRY.register(QueueCollector())


class MetricsMiddleware:
    """Times each request and counts its queries, labelled by the view that answered."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        queries = [0]

        def count(execute: Callable[..., Any], *args: Any) -> Any:
            queries[0] += 1
            return execute(*args)

        started = time.perf_counter()
        with connection.execute_wrapper(count):
            response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name or "unnamed") if match is not None else "unmatched"
        status = f"{response.status_code // 100}xx"
        REQUEST_SECONDS.labels(view, request.method or "", status).observe(
            time.perf_counter() - started
        )
        REQUEST_QUERIES.labels(view).observe(queries[0])
        return response


_STARTED = "_clusterbid_started"  # on the task's request: it goes when the request goes


@task_prerun.connect
def _task_started(task: Any = None, **_: Any) -> None:
    if task is not None:
        setattr(task.request, _STARTED, time.perf_counter())


@task_failure.connect
def _task_failed(sender: Any = None, **_: Any) -> None:
    name = getattr(sender, "name", "unknown")
    TASK_FAILURES.labels(name, task_kind(name)).inc()


@task_postrun.connect
def _task_finished(task: Any = None, state: str | None = None, **_: Any) -> None:
    started = getattr(getattr(task, "request", None), _STARTED, None)
    if started is None:
        return
    name = getattr(task, "name", "unknown")
    outcome = "success" if state == "SUCCESS" else (state or "unknown").lower()
    TASK_SECONDS.labels(name, task_kind(name), outcome).observe(time.perf_counter() - started)
