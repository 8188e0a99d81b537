"""Conditional reads for polling clients: a strong ETag per JSON answer, worked out from a cheap
read of what the answer is built from and compared with `If-None-Match` before the body is built.

Views call these after their access checks, so a 304 only ever goes to a caller who may read
the object; anyone else still gets the 404. Every tag names the acting organisation, the URL
(query included) and the media type, so one caller's tag never validates another's answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from datetime import datetime
from typing import Any, NamedTuple

from django.db.models import Count, Max, Model, Q, QuerySet
from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control
from rest_framework.request import Request

from orgs.models import Organization

# Part of every tag: a change in how an answer is printed must not leave clients on old tags.
FORMAT = 1


def etag(request: Request, org: Organization, *parts: Any) -> str | None:
    """The tag of a JSON answer built from `parts`; None for other media (the browsable API's
    HTML carries a CSRF token of its own)."""
    renderer = getattr(request, "accepted_renderer", None)
    if getattr(renderer, "format", None) != "json":
        return None
    key = (FORMAT, org.pk, request.get_full_path(), request.accepted_media_type, parts)
    return '"' + hashlib.sha256(repr(key).encode()).hexdigest()[:40] + '"'


def not_modified(request: Request, tag: str | None) -> HttpResponse | None:
    """A 304 when the client's `If-None-Match` names `tag`; None means: build the answer."""
    if tag is None or not request.META.get("HTTP_IF_NONE_MATCH"):
        return None
    response = get_conditional_response(request, etag=tag)
    if response is not None:
        _mark(response, tag)
    return response


def tagged(response: HttpResponse, tag: str | None) -> HttpResponse:
    if tag is not None and response.status_code == 200:
        _mark(response, tag)
    return response


def _mark(response: HttpResponse, tag: str) -> None:
    response["ETag"] = tag
    # Per caller, and to be checked again on every use: a shared cache must not keep it.
    patch_cache_control(response, private=True, no_cache=True)


def row_values(instance: Model, *, leave_out: Collection[str] = ()) -> tuple[Any, ...]:
    """The stored columns of a row already loaded: whatever path wrote the row, a changed value
    changes the tag. `leave_out` names columns the caller is never shown."""
    return tuple(
        getattr(instance, f.attname)
        for f in instance._meta.concrete_fields
        if f.name not in leave_out
    )


class RowsSummary(NamedTuple):
    rows: int
    changed: datetime | None
    top: int | None
    passed: int


def rows_summary(rows: QuerySet[Any], *, now: datetime) -> RowsSummary:
    """One aggregate over the rows a list shows (requests): how many, the latest change, and
    how many bid deadlines have passed (a request's `deadline_passed` turns with no write)."""
    summary = (
        rows.order_by()
        .prefetch_related(None)
        .aggregate(
            n=Count("pk"),
            changed=Max("updated_at"),
            top=Max("pk"),
            passed=Count("pk", filter=Q(bid_deadline__lte=now)),
        )
    )
    return RowsSummary(summary["n"], summary["changed"], summary["top"], summary["passed"])
