"""Kept API reads (core/read_cache.py): a GET's JSON is kept per data generation, user, token,
acting organisation (header or session), absolute URL and media type, and served again until one
of those moves or a bid deadline passes (the API shows which deadlines have passed, and a
sealed request's bids open at its deadline). Only JSON is kept: the browsable API's HTML
carries a CSRF token."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from rest_framework.request import Request
from rest_framework.response import Response

from api.permissions import ORG_HEADER
from bids.selectors import next_deadline
from core import read_cache

Handler = TypeVar("Handler", bound=Callable[..., Any])


def _parts(request: Request) -> tuple[Any, ...]:
    session_org = getattr(request._request, "org", None)
    return (
        "api",
        request.user.pk,
        getattr(request.auth, "pk", None),
        request.headers.get(ORG_HEADER, ""),
        getattr(session_org, "pk", None),
        request.build_absolute_uri(),
        request.accepted_media_type,
    )


def kept_read(handler: Handler) -> Handler:
    """Decorate a DRF `get` handler whose answer depends only on the database, the caller, the
    URL and which bid deadlines have passed."""

    @functools.wraps(handler)
    def get(view: Any, request: Request, *args: Any, **kwargs: Any) -> Any:
        renderer = getattr(request, "accepted_renderer", None)
        if not read_cache.usable(request) or getattr(renderer, "format", None) != "json":
            return handler(view, request, *args, **kwargs)
        return read_cache.answer(
            read_cache.key_for(_parts(request)),
            lambda: handler(view, request, *args, **kwargs),
            horizon=lambda now: next_deadline(after=now),
            keepable=lambda response: isinstance(response, Response),
        )

    return get  # type: ignore[return-value]
