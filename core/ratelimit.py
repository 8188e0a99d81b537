"""Per-client-address limits for pages anyone may reach without signing in (a supplier
invitation's join page), counted in the cache like the API's token limit (api/throttling.py).

A rate reads like `10/hour` (config.env.env_rate). Counts run in fixed windows of the rate's
period; the address is core.client_address's, so behind a proxy only CLIENT_IP_HEADER counts.
When the cache cannot be reached the page refuses rather than lets an uncounted flood through,
saying so: that is what the limit exists to stop.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpRequest

from core.client_address import client_address

logger = logging.getLogger(__name__)

_SECONDS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600,
            "hour": 3600, "d": 86400, "day": 86400}  # fmt: skip


class RateLimited(Exception):
    """Too many tries from this address for now; `retry_after` seconds until the window ends."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Window:
    key: str
    limit: int
    seconds: int
    retry_after: int


def _window(*, scope: str, request: HttpRequest, rate: str) -> Window:
    count, _, period = rate.partition("/")
    seconds = _SECONDS[period]
    now = int(time.time())
    address = client_address(request) or "unknown"
    ident = hashlib.sha256(address.encode()).hexdigest()[:32]  # no addresses in cache keys
    key = f"ratelimit:{scope}:{ident}:{now // seconds}"
    return Window(key, int(count), seconds, seconds - now % seconds)


def _refused(window: Window, what: str) -> RateLimited:
    minutes = max(1, round(window.retry_after / 60))
    return RateLimited(
        f"Too many {what} from your network address. Wait {minutes} minute"
        f"{'s' if minutes != 1 else ''} and try again.",
        retry_after=window.retry_after,
    )


def _unavailable(exc: Exception) -> RateLimited:
    logger.error("rate-limit store unreachable: %s", exc)
    return RateLimited(
        "This page is refused for a minute: the store that counts attempts against its limit "
        "cannot be reached. Try again shortly.",
        retry_after=60,
    )


def limit_check(*, scope: str, request: HttpRequest, rate: str, what: str) -> None:
    """`RateLimited` if this address has already used up `rate` in `scope`; counts nothing."""
    window = _window(scope=scope, request=request, rate=rate)
    try:
        used = int(cache.get(window.key, 0))
    except Exception as exc:  # the cache backend's own error types vary
        raise _unavailable(exc) from exc
    if used >= window.limit:
        raise _refused(window, what)


def limit_hit(*, scope: str, request: HttpRequest, rate: str, what: str) -> None:
    """Count one try from this address in `scope`; `RateLimited` once it is over `rate`."""
    window = _window(scope=scope, request=request, rate=rate)
    try:
        used = _count(window)
    except Exception as exc:  # the cache backend's own error types vary
        raise _unavailable(exc) from exc
    if used > window.limit:
        raise _refused(window, what)


def _count(window: Window) -> int:
    cache.add(window.key, 0, timeout=window.seconds + 1)
    try:
        return int(cache.incr(window.key))
    except ValueError:  # expired between add and incr: this try opens a new window
        cache.set(window.key, 1, timeout=window.seconds + 1)
        return 1
