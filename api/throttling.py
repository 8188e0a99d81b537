"""Rate limits for writes made with an API token (a runaway script must not flood the site).

Browser sessions and reads are not limited here; the rate is `settings.API_TOKEN_WRITE_RATE`
(env `API_TOKEN_WRITE_RATE`, e.g. `60/min`), counted per token.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiToken


class TokenWriteThrottle(SimpleRateThrottle):
    scope = "token_writes"

    def get_rate(self) -> str:
        # Read at request time, so a changed setting (or a test's override) applies at once.
        return str(settings.API_TOKEN_WRITE_RATE)

    def allow_request(self, request: Request, view: Any) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.method in SAFE_METHODS or not isinstance(request.auth, ApiToken):
            return None
        # The digest, not the id: ids can be reused after a delete, digests cannot.
        return self.cache_format % {"scope": self.scope, "ident": request.auth.digest[:32]}
