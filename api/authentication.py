"""`Authorization: Token <secret>` for scripts running on the cluster (curl, CI). `Bearer` is
read the same way, as most HTTP tools and OAuth habits write it; any other scheme is refused by
name rather than read as no credentials at all."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from api.services import token_authenticate


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"
    schemes = (b"token", b"bearer")

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request).split()
        if not header:
            return None
        if header[0].lower() not in self.schemes:
            scheme = header[0].decode("ascii", "replace")[:20]
            raise exceptions.AuthenticationFailed(
                f"Authorization scheme {scheme!r} is not accepted: use "
                "'Authorization: Token <secret>'."
            )
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "Invalid token header: use 'Authorization: Token <secret>'."
            )
        try:
            secret = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token: not ASCII.") from None
        token = token_authenticate(secret=secret)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (with WWW-Authenticate) rather than 403 to a missing token.
        return self.keyword
