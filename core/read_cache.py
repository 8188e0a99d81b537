"""Kept reads: an answer's bytes kept in the shared cache under the data generation
(core/generation.py) and everything else the answer depends on, and served again until one of
those moves. A repeated read then costs its access checks and one cache round trip.

Callers name the key's parts: always the user and the absolute URL (host and query included),
plus whatever else selects the answer (token, acting organisation, session, media type). A copy
is only ever served to the caller it was built for, at the same data. What changes with time
alone is bounded by a horizon the caller gives (`until`: the next instant at which the answer
changes by itself), by midnight UTC (day-based figures turn over) and by READ_CACHE_SECONDS.

Only 200 answers are kept; a connection with uncommitted writes reads afresh, and a cache outage
means answering from the database."""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone

from core import generation

View = TypeVar("View", bound=Callable[..., HttpResponse])
Horizon = Callable[[datetime], datetime | None]

# What is kept: the data generation it was built at, the body, its content type, and the POSIX
# time past which it may be untrue.
Kept = tuple[int, bytes, str, float]


def usable(request: HttpRequest) -> bool:
    return (
        settings.READ_CACHE
        and request.method == "GET"
        and not generation.has_pending_writes(connection)
    )


def key_for(parts: tuple[Any, ...]) -> str:
    return "read:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def lookup(key: str, now: datetime) -> tuple[int | None, Kept | None]:
    """The data generation now, and the copy under `key` if it was made at that generation and
    is still true at `now`: one cache round trip. (None, None) when the cache is down."""
    try:
        found = cache.get_many([generation.KEY, key])
        number = found.get(generation.KEY)
        if number is None:  # first use, eviction or a flush: nothing kept can match
            return generation.current(), None
    except Exception:
        return None, None
    kept = found.get(key)
    if (
        isinstance(kept, tuple)
        and len(kept) == 4
        and kept[0] == int(number)
        and now.timestamp() < kept[3]
    ):
        return int(number), kept
    return int(number), None


def keep(
    key: str, number: int, response: HttpResponse, now: datetime, until: datetime | None
) -> None:
    """Keep `response`, built from the data at generation `number`, until `until` at most.
    One copy per key: a newer generation's copy replaces the older one."""
    # Never past midnight UTC either: figures read "as of today" (track records) turn over then.
    midnight = datetime.combine(now.astimezone(UTC).date() + timedelta(days=1), time.min, UTC)
    until = midnight if until is None else min(until, midnight)
    timeout = min(settings.READ_CACHE_SECONDS, max(1, int((until - now).total_seconds())))
    kept: Kept = (number, response.content, response["Content-Type"], until.timestamp())
    with contextlib.suppress(Exception):  # not kept: the next read builds it again
        cache.set(key, kept, timeout=timeout)


def served(kept: Kept) -> HttpResponse:
    return HttpResponse(kept[1], content_type=kept[2])


def answer(
    key: str,
    build: Callable[[], HttpResponse],
    *,
    horizon: Horizon,
    keepable: Callable[[HttpResponse], bool],
    on_hit: Callable[[], object] | None = None,
) -> HttpResponse:
    """The copy under `key` if one is true now; else `build()`, kept once rendered when it is a
    200 that `keepable` accepts, until `horizon(now)` at most."""
    now = timezone.now()
    number, kept = lookup(key, now)
    if number is None:
        return build()
    if kept is not None:
        if on_hit is not None:
            on_hit()
        return served(kept)
    response = build()
    if response.status_code != 200 or not keepable(response):
        return response

    def store(rendered: HttpResponse) -> None:
        keep(key, number, rendered, now, horizon(now))

    if getattr(response, "is_rendered", True):
        store(response)
    else:  # a DRF or template response: its bytes exist once the handler renders it
        response.add_post_render_callback(store)  # type: ignore[attr-defined]
    return response


def kept_page(horizon: Horizon) -> Callable[[View], View]:
    """Keep a signed-in page (a function view, below its access decorators).

    A page carries the session's CSRF token in its forms and shows flashed messages once, so
    it is kept per session and CSRF secret, and read afresh while a message waits. A visit
    without the CSRF cookie (the first) is neither served a copy nor kept: its forms get a new
    secret."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def page(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if (
                not usable(request)
                or not request.user.is_authenticated
                or len(messages.get_messages(request))  # counted, not consumed
            ):
                return view(request, *args, **kwargs)
            if not request.META.get("CSRF_COOKIE"):
                return view(request, *args, **kwargs)
            return answer(
                key_for(_page_parts(request)),
                lambda: view(request, *args, **kwargs),
                horizon=horizon,
                # A message the view itself flashed is shown once: that page is not kept.
                keepable=lambda _: not len(messages.get_messages(request)),
                on_hit=lambda: get_token(request),  # renews the CSRF cookie, as forms would
            )

        return page  # type: ignore[return-value]

    return decorate


def _page_parts(request: HttpRequest) -> tuple[Any, ...]:
    org = getattr(request, "org", None)
    return (
        "page",
        request.user.pk,
        request.session.session_key,
        hashlib.sha256(request.META["CSRF_COOKIE"].encode()).hexdigest(),
        getattr(org, "pk", None),
        request.build_absolute_uri(),
    )
