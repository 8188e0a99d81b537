"""Health: the database, the broker and the workers, each reported on its own."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.http import HttpRequest, JsonResponse

from config.celery import app as celery_app

IN_PROCESS = "in-process (no broker configured: tasks run inside the web process)"


def _database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any failure means "not healthy", and says why
        return f"error: {exc}"
    return None


def _broker() -> str | None:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return f"error: {exc}"
    return None


def _workers() -> tuple[str | None, int]:
    try:
        replies = celery_app.control.ping(timeout=1.0)
    except Exception as exc:
        return f"error: {exc}", 0
    if not replies:
        return "error: no worker answered a ping within 1 s", 0
    return None, len(replies)


def healthz(request: HttpRequest) -> JsonResponse:
    """For the orchestrator and for people: 200 when every part answers, else 503 naming the
    part. A web process that answers while no worker runs is not healthy: uploads would wait."""
    body: dict[str, Any] = {}
    problems = []
    db = _database()
    body["database"] = db or "ok"
    problems += [db] if db else []
    if celery_app.conf.task_always_eager:
        body["broker"] = body["worker"] = IN_PROCESS
    else:
        broker = _broker()
        body["broker"] = broker or "ok"
        if broker:
            problems.append(broker)
            body["worker"] = "unknown: the broker is unreachable"
        else:
            worker, count = _workers()
            body["worker"] = worker or f"ok ({count} answered)"
            problems += [worker] if worker else []
    body = {"status": "error" if problems else "ok", **body}
    return JsonResponse(body, status=503 if problems else 200)
