"""Which client address sign-in throttling counts: the connection's, unless a proxy is trusted."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from config.env import env_header
from core.client_address import client_address


def _request(remote: str = "172.18.0.5", forwarded: str | None = None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().post("/accounts/login/", **extra)


def test_by_default_a_forwarded_header_is_ignored(settings):
    settings.CLIENT_IP_HEADER = ""
    assert client_address(_request(forwarded="1.2.3.4")) == "172.18.0.5"


def test_behind_a_trusted_proxy_the_address_it_saw_is_used(settings):
    settings.CLIENT_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    settings.TRUSTED_PROXY_COUNT = 1
    # The client wrote 6.6.6.6 itself; the proxy appended the address it really saw.
    assert client_address(_request(forwarded="6.6.6.6, 203.0.113.7")) == "203.0.113.7"
    settings.TRUSTED_PROXY_COUNT = 2
    assert client_address(_request(forwarded="6.6.6.6, 203.0.113.7, 10.0.0.2")) == "203.0.113.7"


def test_a_missing_or_garbled_header_falls_back_to_the_connection(settings):
    settings.CLIENT_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    settings.TRUSTED_PROXY_COUNT = 2
    assert client_address(_request(forwarded="203.0.113.7")) == "172.18.0.5"
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_address(_request(forwarded="not-an-address")) == "172.18.0.5"
    assert client_address(_request()) == "172.18.0.5"


def test_the_header_setting_is_read_strictly(monkeypatch):
    monkeypatch.setenv("CLIENT_IP_HEADER", "X-Forwarded-For")
    assert env_header("CLIENT_IP_HEADER") == "HTTP_X_FORWARDED_FOR"
    monkeypatch.setenv("CLIENT_IP_HEADER", "HTTP_X_REAL_IP")
    assert env_header("CLIENT_IP_HEADER") == "HTTP_X_REAL_IP"
    monkeypatch.setenv("CLIENT_IP_HEADER", "X Forwarded: for")
    with pytest.raises(ImproperlyConfigured, match="CLIENT_IP_HEADER must be an HTTP header"):
        env_header("CLIENT_IP_HEADER")
    monkeypatch.delenv("CLIENT_IP_HEADER")
    assert env_header("CLIENT_IP_HEADER") == ""
