"""Reading an identity provider's OpenID Connect discovery document
(`<issuer>/.well-known/openid-configuration`) for the endpoints a sign-in uses."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.core.exceptions import ValidationError

ENDPOINTS = ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri")


@dataclass(frozen=True)
class Endpoints:
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    jwks_uri: str


def check_url(url: str, *, field: str) -> None:
    """HTTPS only: the client secret and the tokens travel to these addresses. Plain HTTP only
    where SSO_ALLOW_HTTP_ISSUERS says so (a provider on this machine, the tests)."""
    scheme = urlsplit(url).scheme
    if scheme == "https" or (scheme == "http" and settings.SSO_ALLOW_HTTP_ISSUERS):
        return
    raise ValidationError({field: f"“{url}” must start with https://."})


def discover(issuer: str) -> Endpoints:
    """The issuer's endpoints; a `ValidationError` on `issuer` saying what went wrong."""
    check_url(issuer, field="issuer")
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        response = requests.get(url, timeout=settings.SSO_HTTP_TIMEOUT_SECONDS)
        response.raise_for_status()
        document = response.json()
    except requests.RequestException as exc:
        raise ValidationError(
            {"issuer": f"Could not read {url}: {_reason(exc)}. Check the issuer address."}
        ) from None
    except ValueError:
        raise ValidationError({"issuer": f"{url} did not answer with JSON."}) from None
    if not isinstance(document, dict):
        raise ValidationError({"issuer": f"{url} did not answer with a JSON object."})
    if str(document.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
        raise ValidationError(
            {"issuer": f"{url} names the issuer “{document.get('issuer', '')}”, not “{issuer}”: "
             "copy the issuer exactly as the provider shows it."}
        )  # fmt: skip
    missing = [name for name in ENDPOINTS if not isinstance(document.get(name), str)]
    if missing:
        raise ValidationError({"issuer": f"{url} does not name {', '.join(missing)}."})
    algorithms = document.get("id_token_signing_alg_values_supported", ["RS256"])
    if "RS256" not in algorithms:
        raise ValidationError({"issuer": "The provider does not sign ID tokens with RS256."})
    for name in ENDPOINTS:
        check_url(document[name], field="issuer")
    return Endpoints(**{name: document[name] for name in ENDPOINTS})


def _reason(exc: requests.RequestException) -> str:
    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"it answered HTTP {exc.response.status_code}"
    if isinstance(exc, requests.Timeout):
        return "no answer in time"
    return "the address could not be reached"
