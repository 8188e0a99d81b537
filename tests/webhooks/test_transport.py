"""The URL check before an endpoint is saved and before each attempt: a host name no DNS name
can be is refused by name before any lookup; a Unicode name is looked up as it is written."""

from __future__ import annotations

import socket

import pytest

from webhooks.transport import TargetRefused, check_url

PUBLIC = "93.184.215.14"


@pytest.fixture
def lookups(monkeypatch):
    """The names looked up; each resolves to one public address, so no test needs a network."""
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        asked.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


@pytest.mark.parametrize("allow_private", [False, True])
@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://exa mple.com/hook", "“exa mple.com” is not a valid host name: it holds a space."),
        ("https://bad_host!.com/", "“bad_host!.com” is not a valid host name: it holds “!”."),
        ("https://hooks.exa%20mple.com/", "it holds “%”."),
        ("https://-hooks.example.com/", "its part “-hooks” starts or ends with a hyphen."),
        ("https://hooks..example.com/", "a part between its dots is empty or longer than 63"),
        # Python's URL parser would drop these, and save a URL other than the one checked.
        ("https://hooks.exa\tmple.com/", "a tab, a line break or another control character"),
        ("https://hooks.example.com/cb\r\nX-Injected: 1", "a tab, a line break"),
    ],
)
def test_a_host_no_dns_name_can_be_is_refused_before_any_lookup(lookups, url, why, allow_private):
    with pytest.raises(TargetRefused) as refused:
        check_url(url, allow_private=allow_private)
    assert why in str(refused.value)
    assert lookups == []


def test_a_host_that_does_not_resolve_today_passes_if_its_name_is_valid(monkeypatch):
    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    check_url("https://hooks.not-yet-registered.example/cb", allow_private=False)


@pytest.mark.parametrize(
    "url",
    [
        "https://bücher.example/hook",
        "https://xn--bcher-kva.example/hook",
        "https://hooks.example.com./cb",
        "https://[2606:4700::1111]/cb",
    ],
)
def test_idn_names_fully_qualified_names_and_ip_literals_pass(lookups, url):
    check_url(url, allow_private=False)
    assert len(lookups) == 1
