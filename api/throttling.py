"""Rate limits for writes made with an API token (a runaway script must not flood the site).

Browser sessions and reads are not limited here; the rate is `settings.API_TOKEN_WRITE_RATE`
(env `API_TOKEN_WRITE_RATE`, e.g. `60/min`), counted per token in the cache. When the cache
cannot be reached the limiter fails closed for writes (503, saying why, with Retry-After): an
unlimited script is what the limit exists to stop. Reads never touch it, so they go on working.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import APIException
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiToken


class LimiterUnavailable(APIException):
    status_code = 503
    default_detail = (
        "Writes with a token are refused for now: the store that counts them against the rate "
        "limit cannot be reached. Reads still work. Retry in a minute."
    )
    default_code = "limiter_unavailable"
    retry_after_seconds = 30


class TokenWriteThrottle(SimpleRateThrottle):
    scope = "token_writes"

    def get_rate(self) -> str:
        # Read at request time, so a changed setting (or a test's override) applies at once.
        return str(settings.API_TOKEN_WRITE_RATE)

    def allow_request(self, request: Request, view: Any) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # the cache backend's own error types vary (Redis, memcached)
            if self.get_cache_key(request, view) is None:
                raise
            raise LimiterUnavailable() from exc

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.method in SAFE_METHODS or not isinstance(request.auth, ApiToken):
            return None
        # The digest, not the id: ids can be reused after a delete, digests cannot.
        return self.cache_format % {"scope": self.scope, "ident": request.auth.digest[:32]}
