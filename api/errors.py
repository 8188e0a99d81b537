"""One error shape for the whole API: `{"detail": "...", "errors": {"field": ["..."]}}`.

Service rules raise Django's `ValidationError` (or `ServiceError`); they come back as 400 with
the field (or the questionnaire answer, `answers.<key>`) named in `errors`. A refusal because
of the object's state (`core.errors.Conflict`: awarded, accepted, nothing to retry) answers
409. A lifecycle move refused by its table (`MoveRefused`) answers 403 (not your party or role)
or 409 (not in this state), with the move's name; a move that needs a confirmation sent
without `"confirm": true` answers 400 with `errors.confirm`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import bad_request as default_bad_request
from django.views.defaults import page_not_found
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from api.throttling import LimiterUnavailable
from core.errors import Conflict, QueueUnavailable, TooBusy
from core.lifecycle import MoveRefused
from core.limits import TEXT_LIMIT
from core.secrets import SecretKeyError
from engine.formatting import data_size

NON_FIELD = "non_field_errors"
FIELD_PROBLEMS = "Check the fields named in errors."


def _flatten(value: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF nests errors for nested serializers and dict fields; scripts want flat names."""
    out: dict[str, list[str]] = {}
    if isinstance(value, dict):
        for key, inner in value.items():
            name = NON_FIELD if key in (NON_FIELD_ERRORS, NON_FIELD) and not prefix else str(key)
            for k, v in _flatten(inner, f"{prefix}{name}.").items():
                out.setdefault(k, []).extend(v)
        return out
    if isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
        for index, inner in enumerate(value):
            for k, v in _flatten(inner, f"{prefix}{index}.").items():
                out.setdefault(k, []).extend(v)
        return out
    items = value if isinstance(value, list | tuple) else [value]
    out[prefix.rstrip(".") or NON_FIELD] = [str(v) for v in items]
    return out


def error_body(detail: str, errors: dict[str, list[str]] | None = None) -> dict[str, Any]:
    return {"detail": detail, "errors": errors or {}}


@contextmanager
def fields_renamed(names: dict[str, str]) -> Iterator[None]:
    """A service names errors after the browser form's fields; the API names its own fields."""
    try:
        yield
    except DjangoValidationError as exc:
        if not hasattr(exc, "error_dict"):
            raise
        renamed = {names.get(key, key): errors for key, errors in exc.error_dict.items()}
        raise DjangoValidationError(renamed) from exc


def _from_django(exc: DjangoValidationError) -> Response:
    if hasattr(exc, "error_dict"):
        errors = _flatten(exc.message_dict)
        only = errors.get(NON_FIELD) if list(errors) == [NON_FIELD] else None
        # A refusal may sum itself up (`summary`) better than "check the fields".
        detail = getattr(exc, "summary", "") or (" ".join(only) if only else FIELD_PROBLEMS)
        return Response(error_body(detail, errors), status=status.HTTP_400_BAD_REQUEST)
    return Response(error_body(" ".join(exc.messages)), status=status.HTTP_400_BAD_REQUEST)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, MoveRefused):
        # A lifecycle table refused: 403 when not your party or role, 409 when not now, 400
        # (naming `confirm`) when the move needs a confirmation the call did not send.
        errors = _flatten(exc.message_dict) if hasattr(exc, "error_dict") else None
        body = error_body(" ".join(exc.messages), errors) | {"move": exc.decision.move.name}
        return Response(body, status=exc.status_code)
    if isinstance(exc, TooBusy):
        busy = Response(error_body(" ".join(exc.messages)), status=429)
        busy["Retry-After"] = str(exc.retry_after_seconds)
        return busy
    if isinstance(exc, LimiterUnavailable):
        closed = Response(error_body(str(exc.detail)), status=exc.status_code)
        closed["Retry-After"] = str(exc.retry_after_seconds)
        return closed
    if isinstance(exc, QueueUnavailable):
        waiting = Response(error_body(exc.message), status=503)
        waiting["Retry-After"] = str(exc.retry_after_seconds)
        return waiting
    if isinstance(exc, SecretKeyError):
        # The server's configuration, not the request: the operators list the old key again.
        return Response(error_body(" ".join(exc.messages)), status=503)
    if isinstance(exc, Conflict):
        refused = _from_django(exc)
        refused.status_code = status.HTTP_409_CONFLICT
        return refused
    if isinstance(exc, DjangoValidationError):
        return _from_django(exc)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django answer 500 and log it
    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        only = errors.get(NON_FIELD) if list(errors) == [NON_FIELD] else None
        response.data = error_body(" ".join(only) if only else FIELD_PROBLEMS, errors)
    elif isinstance(response.data, dict) and "detail" in response.data:
        response.data = error_body(str(response.data["detail"]))
    else:
        response.data = error_body("Request refused.", _flatten(response.data))
    return response


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: a body over DATA_UPLOAD_MAX_MEMORY_SIZE is too large (413), said in the
    product's words, not a puzzle about host names; anything else is Django's 400 page."""
    if not isinstance(exception, RequestDataTooBig):
        return default_bad_request(request, exception)
    limit = data_size(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    detail = f"Too large: one form or request may carry at most {limit} of text."
    if request.path.startswith("/api/"):
        return JsonResponse(error_body(detail), status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    return render(
        request,
        "413.html",
        {"detail": detail, "text_limit": TEXT_LIMIT},
        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    )


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: URLs under /api/ that match no route answer in the API's JSON shape."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("Not found."), status=status.HTTP_404_NOT_FOUND)
    return page_not_found(request, exception)


@csrf_exempt  # any method may land here; a CSRF 403 page would hide the JSON 404
def unknown_route(request: HttpRequest, rest: str = "") -> HttpResponse:
    """The last /api/ route: no match answers JSON even with DEBUG on (it bypasses handler404)."""
    path = request.path_info
    detail = "Not found."
    if not path.endswith("/"):
        try:
            match = resolve(f"{path}/")
        except Resolver404:
            match = None
        if match is not None and match.func is not unknown_route:
            detail = f"Not found. API URLs end with a slash: {request.path}/"
    return JsonResponse(error_body(detail), status=status.HTTP_404_NOT_FOUND)
