"""Refuse an over-large request body from its Content-Length, before Django reads any of it.

Django spools multipart files to disk without a limit of its own, so an 80 MB body aimed at a
50 MB evidence limit was read in full and only then refused. Failed-run uploads (Flight
Recorder dumps of a 16,384-rank job) may be as large as FAILED_RUN_MAX_BYTES, usage files (a
year of hourly lines) as large as USAGE_MAX_BYTES; every other route takes at most
EVIDENCE_MAX_BYTES, plus room for the form's other fields.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from core.errors import QueueUnavailable
from core.secrets import SecretKeyError
from engine.formatting import data_size

logger = logging.getLogger(__name__)

#: Routes that take a whole failed run (views named by "<namespace>:<url name>").
LARGE_UPLOAD_ROUTES = frozenset({"incidents:failed-run-upload", "api:reservation-failed-runs"})
#: Routes that take a provider's usage or invoice export.
USAGE_UPLOAD_ROUTES = frozenset({"billing:usage-list", "api:reservation-usage"})
_SLACK = 1024 * 1024  # the form's other fields and the multipart boundaries


def body_limit(route: str) -> int:
    if route in LARGE_UPLOAD_ROUTES:
        return settings.FAILED_RUN_MAX_BYTES + _SLACK
    if route in USAGE_UPLOAD_ROUTES:
        return settings.USAGE_MAX_BYTES + _SLACK
    return settings.EVIDENCE_MAX_BYTES + _SLACK


class RequestBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return None  # Django answers a malformed length itself
        match = request.resolver_match
        route = match.view_name if match is not None else ""
        limit = body_limit(route)
        if length <= limit:
            return None
        message = (
            f"The request is {data_size(length)}; this address takes at most "
            f"{data_size(limit)}. Nothing was read or stored."
        )
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message, "errors": {}}, status=413)
        return render(request, "413.html", {"message": message}, status=413)


class QueueUnavailableMiddleware:
    """A view whose stored work could not be queued (the broker is away) answers 503 saying so,
    never a 500: JSON under /api/ (DRF's handler answers its own views first), a page elsewhere.
    A view may name where the stored thing can be seen (`exc.next_url`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, QueueUnavailable):
            return None
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"detail": exc.message, "errors": {}}, status=503)
        else:
            context = {"message": exc.message, "next_url": getattr(exc, "next_url", "")}
            response = render(request, "503_queue.html", context, status=503)
        response["Retry-After"] = str(exc.retry_after_seconds)
        return response


class StoredFileMissingMiddleware:
    """A download whose row exists but whose bytes the file storage cannot find (a volume not
    shared between web and worker, a restore without its files, an outage) answers 503 in
    words and is logged for the operators, never a 500. The row is never touched."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, FileNotFoundError):
            return None
        logger.error("stored file missing for %s: %s", request.path, exc.filename or exc)
        message = (
            "The file is recorded but file storage cannot find its bytes right now. Nothing was "
            "changed; try again later, and tell the operators if it persists."
        )
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message, "errors": {}}, status=503)
        return render(request, "503_file.html", {"message": message}, status=503)


class SecretKeyErrorMiddleware:
    """A stored secret that no configured SIGNING_KEY opens (the key was changed without
    listing the old one in SIGNING_KEY_PREVIOUS) answers 503 in words, never a 500: the
    operators can put the old key back and nothing stored is lost. Views that can say more
    (signing an annex, a sign-in) catch it first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, SecretKeyError):
            return None
        message = exc.messages[0]
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": message, "errors": {}}, status=503)
        return render(request, "503_secret.html", {"message": message}, status=503)
