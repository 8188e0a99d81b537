"""The client's address as sign-in throttling sees it (django-axes' AXES_CLIENT_IP_CALLABLE).

Without configuration it is the connection's own address (REMOTE_ADDR): a header such as
X-Forwarded-For is written by whoever sends the request, so trusting it unasked would let an
attacker pick the address their failures are counted against. Behind a reverse proxy,
CLIENT_IP_HEADER names the header that proxy sets and TRUSTED_PROXY_COUNT how many proxies
append to it; the address is then the one the outermost trusted proxy saw, counted from the
right, so that anything the client wrote further left is ignored.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
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
