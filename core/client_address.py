"""Sign-in throttling's two questions for django-axes: the client's address
(AXES_CLIENT_IP_CALLABLE) and how long a pair stays paused (AXES_COOLOFF_TIME, `cool_off`).

Without configuration it is the connection's own address (REMOTE_ADDR): a header such as
X-Forwarded-For is written by whoever sends the request, so trusting it unasked would let an
attacker pick the address their failures are counted against. Behind a reverse proxy,
CLIENT_IP_HEADER names the header that proxy sets and TRUSTED_PROXY_COUNT how many proxies
append to it; the address is then the one the outermost trusted proxy saw, counted from the
right, so that anything the client wrote further left is ignored.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta

from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    remote = request.META.get("REMOTE_ADDR") or None
    header = settings.CLIENT_IP_HEADER
    if not header:
        return remote
    hops = [hop.strip() for hop in str(request.META.get(header, "")).split(",") if hop.strip()]
    count = settings.TRUSTED_PROXY_COUNT
    if len(hops) < count:
        return remote  # not through the configured proxies: only the connection is known
    candidate = hops[-count]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote


def cool_off(request: HttpRequest | None = None) -> timedelta:
    """How long an (account, address) pair stays paused (django-axes' AXES_COOLOFF_TIME):
    AXES_COOLOFF_MINUTES after AXES_FAILURE_LIMIT failures, doubling with each further limit's
    worth of failures (tries made while paused count), up to AXES_COOLOFF_MAX_HOURS. A pair
    left alone for its pause starts afresh (its attempts expire and are cleaned)."""
    base = timedelta(minutes=settings.AXES_COOLOFF_MINUTES)
    address = getattr(request, "axes_ip_address", None)
    username = get_client_username(request) if request is not None else None
    if not address or not username:
        return base
    failures = (
        AccessAttempt.objects.filter(username=username, ip_address=address).aggregate(
            n=Sum("failures_since_start")
        )["n"]
        or 0
    )
    rounds = max(0, failures // settings.AXES_FAILURE_LIMIT - 1)
    longest = timedelta(hours=settings.AXES_COOLOFF_MAX_HOURS)
    return min(base * 2 ** min(rounds, 16), longest)
