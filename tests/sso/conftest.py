"""A local OpenID Connect provider (tests/sso/idp.py) and Helix Labs' connection to it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.test import Client

from sso.models import OidcConnection
from sso.services import ConnectionInput, connection_save
from tests.sso.idp import CLIENT_ID, CLIENT_SECRET, Provider

MAPPING = "helix-buyers = requester\nhelix-approvers = approver\nhelix-admins = admin"


@pytest.fixture(autouse=True)
def _http_issuers(settings: Any) -> None:
    settings.SSO_ALLOW_HTTP_ISSUERS = True  # the local provider speaks plain HTTP


@pytest.fixture
def idp() -> Iterator[Provider]:
    with Provider() as provider:
        provider.add(
            "dana",
            password="dana-pw",
            email="dana@helix.example",
            groups=["helix-buyers"],
            given_name="Dana",
            family_name="Reyes",
        )
        yield provider


def connection_input(idp: Provider, **changes: Any) -> ConnectionInput:
    values = {
        "issuer": idp.issuer,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "email_domains": "helix.example",
        "groups_claim": "groups",
        "group_roles": MAPPING,
        "enabled": True,
    }
    return ConnectionInput(**{**values, **changes})


@pytest.fixture
def helix_sso(idp: Provider, buyer: Any) -> OidcConnection:
    return connection_save(org=buyer.org, user=buyer.user, data=connection_input(idp))


def sign_in(
    client: Client, username: str, password: str, *, who: str = "dana@helix.example"
) -> Any:
    """The whole front channel: our start page, the provider's login form, our callback.
    Returns the callback's response."""
    start = client.post("/accounts/sso/", {"who": who})
    assert start.status_code == 302, start.content[:500]
    at_provider = requests.post(
        start["Location"], data={"username": username, "password": password},
        allow_redirects=False, timeout=10,
    )  # fmt: skip
    assert at_provider.status_code == 302, at_provider.text
    back = urlsplit(at_provider.headers["Location"])
    return client.get(back.path, {k: v[0] for k, v in parse_qs(back.query).items()})
