"""A small, real OpenID Connect provider on a free loopback port, for the sign-in tests.

It serves discovery, JWKS, an authorization page (a username and password form, as Keycloak or
Okta show), a token endpoint that checks the client, the redirect URI and the PKCE verifier,
and userinfo; ID tokens are RS256-signed with its own key. `tamper` changes claims of the
next ID tokens, and `sign_with_unpublished_key` signs them with a key JWKS does not list, so
tests can see our side refuse what a misbehaving provider sends.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "clusterbid"
CLIENT_SECRET = "s3cret-of-the-client"


@dataclass
class Person:
    password: str
    email: str
    groups: list[str]
    given_name: str = ""
    family_name: str = ""
    sub: str = field(default_factory=lambda: secrets.token_hex(8))


@dataclass
class Grant:
    username: str
    redirect_uri: str
    nonce: str | None
    challenge: str | None


class Provider:
    def __init__(self) -> None:
        self.people: dict[str, Person] = {}
        self.grants: dict[str, Grant] = {}
        self.tokens: dict[str, str] = {}  # access token -> username
        self.tamper: dict[str, Any] = {}
        self.sign_with_unpublished_key = False
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}/realms/acme"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Provider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add(self, username: str, **person: Any) -> Person:
        self.people[username] = Person(**person)
        return self.people[username]

    def discovery(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/auth",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/certs",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
        }

    def jwks(self) -> dict[str, Any]:
        jwk = json.loads(RSAAlgorithm.to_jwk(self._key.public_key()))
        return {"keys": [{**jwk, "kid": "acme-1", "alg": "RS256", "use": "sig"}]}

    def claims(self, username: str) -> dict[str, Any]:
        person = self.people[username]
        return {
            "sub": person.sub,
            "email": person.email,
            "email_verified": True,
            "given_name": person.given_name,
            "family_name": person.family_name,
            "groups": list(person.groups),
        }

    def id_token(self, grant: Grant) -> str:
        now = int(time.time())
        claims = {
            **self.claims(grant.username),
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "iat": now,
            "exp": now + 300,
            "nonce": grant.nonce,
            **self.tamper,
        }
        key = self._other_key if self.sign_with_unpublished_key else self._key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "acme-1"})

    def authorize(
        self, query: dict[str, str], form: dict[str, str]
    ) -> tuple[int, dict[str, str], str]:
        """The login page (GET), then the redirect back with a code (POST)."""
        if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
            return 400, {}, "unknown client"
        if not form:
            return 200, {"Content-Type": "text/html"}, _login_page(query)
        person = self.people.get(form.get("username", ""))
        if person is None or person.password != form.get("password"):
            return 200, {"Content-Type": "text/html"}, _login_page(query, error=True)
        code = secrets.token_urlsafe(16)
        self.grants[code] = Grant(
            username=form["username"],
            redirect_uri=query["redirect_uri"],
            nonce=query.get("nonce"),
            challenge=query.get("code_challenge"),
        )
        back = f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"
        return 302, {"Location": back}, ""

    def token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client"}
        grant = self.grants.pop(form.get("code", ""), None)
        if grant is None or grant.redirect_uri != form.get("redirect_uri"):
            return 400, {"error": "invalid_grant"}
        if grant.challenge is not None and grant.challenge != _s256(form.get("code_verifier", "")):
            return 400, {"error": "invalid_grant", "error_description": "PKCE"}
        access = secrets.token_urlsafe(16)
        self.tokens[access] = grant.username
        return 200, {
            "access_token": access,
            "token_type": "Bearer",
            "id_token": self.id_token(grant),
        }

    def userinfo(self, authorization: str) -> tuple[int, dict[str, Any]]:
        username = self.tokens.get(authorization.removeprefix("Bearer "))
        if username is None:
            return 401, {"error": "invalid_token"}
        return 200, self.claims(username)


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _login_page(query: dict[str, str], *, error: bool = False) -> str:
    hidden = "".join(
        f'<input type="hidden" name="q_{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in query.items()
    )
    wrong = '<p id="idp-error">Invalid username or password.</p>' if error else ""
    return (
        "<!doctype html><html lang='en'><head><title>Acme sign-in</title></head><body><main>"
        f"<h1>Sign in to Acme</h1>{wrong}<form method='post'>{hidden}"
        "<label for='username'>Username</label><input id='username' name='username'>"
        "<label for='password'>Password</label><input id='password' name='password' "
        "type='password'><button type='submit' id='idp-submit'>Sign in</button></form>"
        "</main></body></html>"
    )


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._route({})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode()
            self._route({k: v[0] for k, v in parse_qs(body).items()})

        def _route(self, form: dict[str, str]) -> None:
            url = urlsplit(self.path)
            path = url.path.removeprefix(urlsplit(provider.issuer).path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if path == "/.well-known/openid-configuration":
                self._json(200, provider.discovery())
            elif path == "/certs":
                self._json(200, provider.jwks())
            elif path == "/auth":
                # The login form posts the original query back as q_* fields.
                kept = {k[2:]: v for k, v in form.items() if k.startswith("q_")}
                answer = {k: v for k, v in form.items() if not k.startswith("q_")}
                status, headers, text = provider.authorize(kept or query, answer)
                self._send(status, headers, text.encode())
            elif path == "/token":
                self._json(*provider.token(form))
            elif path == "/userinfo":
                self._json(*provider.userinfo(self.headers.get("Authorization", "")))
            else:
                self._json(404, {"error": "not_found"})

        def _json(self, status: int, body: dict[str, Any]) -> None:
            self._send(status, {"Content-Type": "application/json"}, json.dumps(body).encode())

        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
