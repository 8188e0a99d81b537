"""What an operator scrapes: `/metrics` in the Prometheus text format."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from core.metrics import exposition


def scrape_allowed(request: HttpRequest) -> bool:
    """With `METRICS_TOKEN` set, only `Authorization: Bearer <token>`; without it, only a
    scraper on this host (the loopback address), so a public bind never leaks the figures."""
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not scrape_allowed(request):
        raise Http404  # not advertised to whoever may not read it
    body, content_type = exposition()
    return HttpResponse(body, content_type=content_type)
