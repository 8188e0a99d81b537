"""mozilla-django-oidc's authentication backend, configured per organisation: the callback view
puts the connection the sign-in started with on the request, and the backend reads its
endpoints and client from it rather than from settings."""

from __future__ import annotations

from typing import Any

import jwt
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from sso import selectors, services
from sso.models import OidcConnection

REQUEST_ATTRIBUTE = "oidc_connection"


class OrganizationOIDCBackend(OIDCAuthenticationBackend):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The library reads one provider from settings here; ours comes with each request.
        self.UserModel = get_user_model()
        self.connection: OidcConnection | None = None

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        connection = getattr(request, REQUEST_ATTRIBUTE, None)
        if connection is None:
            return None  # a password sign-in, or a callback nobody started
        self.connection = connection
        self.OIDC_OP_TOKEN_ENDPOINT = connection.token_endpoint
        self.OIDC_OP_USER_ENDPOINT = connection.userinfo_endpoint
        self.OIDC_OP_JWKS_ENDPOINT = connection.jwks_uri
        self.OIDC_RP_CLIENT_ID = connection.client_id
        self.OIDC_RP_CLIENT_SECRET = selectors.client_secret(connection)
        self.OIDC_RP_SIGN_ALGO = "RS256"
        self.OIDC_RP_IDP_SIGN_KEY = None
        user: User | None = super().authenticate(request, **kwargs)
        return user

    def get_payload_data(self, token: str, key: Any) -> dict[str, Any]:
        """The library turns only a bad signature into SuspiciousOperation; an expired or
        not-yet-valid token is refused the same way."""
        try:
            payload: dict[str, Any] = super().get_payload_data(token, key)
        except jwt.PyJWTError as exc:
            raise SuspiciousOperation(f"The ID token is not valid: {exc}.") from None
        return payload

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        """The library checks the signature, expiry and nonce; the ID token must also come
        from this connection's issuer and be meant for its client."""
        payload: dict[str, Any] = super().verify_token(token, **kwargs)
        assert self.connection is not None
        if str(payload.get("iss", "")).rstrip("/") != self.connection.issuer.rstrip("/"):
            raise SuspiciousOperation("The ID token comes from another issuer.")
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.connection.client_id not in audiences:
            raise SuspiciousOperation("The ID token is meant for another client.")
        if len(audiences) > 1 and payload.get("azp") != self.connection.client_id:
            raise SuspiciousOperation("The ID token was issued to another party.")
        return payload

    def get_userinfo(
        self, access_token: str, id_token: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """The userinfo claims with the ID token's on top (signed, and where providers such as
        Entra ID put the groups); both must name the same subject."""
        userinfo: dict[str, Any] = super().get_userinfo(access_token, id_token, payload)
        if userinfo.get("sub") != payload.get("sub"):
            raise SuspiciousOperation("The userinfo answer names another subject.")
        return {**userinfo, **payload}

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> User:
        assert self.connection is not None
        claims = self.get_userinfo(access_token, id_token, payload)
        return services.oidc_sign_in(connection=self.connection, claims=claims)
