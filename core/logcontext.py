"""Who a log line is about: the request id and the acting organisation, on every line.

`RequestContextMiddleware` names each request (the caller's `X-Request-ID` when it is a sane
token, else a fresh one, echoed in the response) and the organisation is added once the request
knows it (`bind_organization`). `ContextFilter` copies both onto each record, so the JSON
formatter prints them; a line logged outside a request carries "-".
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

_REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="-")
_ORGANIZATION_ID: ContextVar[str] = ContextVar("organization_id", default="-")
_SANE_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


def bind_organization(org_id: int | None) -> None:
    _ORGANIZATION_ID.set("-" if org_id is None else str(org_id))


def request_id() -> str:
    return _REQUEST_ID.get()


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _REQUEST_ID.get()
        record.organization_id = _ORGANIZATION_ID.get()
        return True


class RequestContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        rid = given if _SANE_ID.fullmatch(given) else uuid.uuid4().hex
        _REQUEST_ID.set(rid)
        _ORGANIZATION_ID.set("-")
        response = self.get_response(request)
        response["X-Request-ID"] = rid
        return response


@receiver(request_finished)
def _forget_request(**_: object) -> None:
    # Not at the middleware's return: Django logs an error response after every middleware has
    # returned, and that line must still name its request.
    _REQUEST_ID.set("-")
    _ORGANIZATION_ID.set("-")
