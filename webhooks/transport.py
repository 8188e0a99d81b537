"""One POST to a webhook endpoint, to an address checked first and then pinned.

The host name is resolved once; every address it resolves to must be public (unless private
targets are allowed, as in tests), and the connection goes to the checked address with the
name kept for the Host header and TLS, so a second lookup (DNS rebinding) cannot send the
request elsewhere. Redirects are not followed: a 3xx is a failed attempt.
"""

from __future__ import annotations

import http.client
import ipaddress
import re
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.webhooks import address_refusal

RESPONSE_READ_MAX = 64 * 1024  # read so much of the answer, never more
ERROR_MAX = 300
# One label of a host name once IDNA-encoded: letters, digits and inner hyphens (RFC 1123),
# and underscores, which real DNS names carry (old S3 bucket hosts) and resolvers accept.
_LABEL_RE = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\Z", re.I)
NAME_MAX = 253


class TargetRefused(ValueError):
    """The URL may not receive deliveries; the message says why, for the form and the log."""


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    latency_ms: int
    error: str

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def check_url(url: str, *, allow_private: bool) -> None:
    """Refuse a URL that is not https (http only where private targets are allowed), has no
    host, names a host that no DNS name or IP address can be, or one that is local by name or
    by address."""
    # urlsplit drops tabs and line breaks (as browsers do), so the URL stored would not be the
    # one checked and delivered to.
    if any(ord(c) < 32 or ord(c) == 127 for c in url.strip()):
        raise TargetRefused("The URL holds a tab, a line break or another control character.")
    try:
        parts = urlsplit(url)
        port = parts.port or 443
    except ValueError as exc:  # an unclosed [IPv6], a port that is no number from 0 to 65535
        raise TargetRefused(f"The URL is not a valid address ({exc}).") from None
    allowed = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed:
        raise TargetRefused("The URL must start with https://.")
    host = parts.hostname or ""
    if not host:
        raise TargetRefused("The URL names no host.")
    refusal = host_refusal(host)
    if refusal:
        raise TargetRefused(refusal)
    if allow_private:
        return
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
        raise TargetRefused(f"{host} is a local name; deliveries go to public addresses only.")
    try:
        _public_addresses(host, port)
    except socket.gaierror:
        return  # unknown today: each attempt resolves it again and logs what it finds


def host_refusal(host: str) -> str | None:
    """Why `host` (as urlsplit gives it, lower-cased, without brackets) is neither an IP address
    nor a name DNS can hold; None when it is one. A Unicode name counts in its IDNA form, so
    bücher.example passes and "exa mple.com" does not, whether or not a lookup would fail."""
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    try:
        encoded = host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        # The codec names only this one of its refusals; the others are characters.
        too_long = "empty or too long" in str(exc)
        why = (
            "a part between its dots is empty or longer than 63 characters"
            if too_long
            else "it holds characters no domain name can"
        )
        return f"“{host}” is not a valid host name: {why}."
    name = encoded.removesuffix(".")  # the root's dot of a fully qualified name
    if len(name) > NAME_MAX:
        return f"“{host}” is not a valid host name: longer than {NAME_MAX} characters."
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "-_."))})
    if bad:
        shown = ", ".join("a space" if c.isspace() else f"“{c}”" for c in bad)
        return f"“{host}” is not a valid host name: it holds {shown}."
    for label in name.split("."):
        if not _LABEL_RE.match(label):
            why = "starts or ends with a hyphen" if label else "is empty"
            return f"“{host}” is not a valid host name: its part “{label}” {why}."
    return None


def _public_addresses(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    for address in addresses:
        refusal = address_refusal(address)
        if refusal:
            raise TargetRefused(
                f"{host} resolves to {refusal}; deliveries go to public addresses only."
            )
    return addresses


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, port: int | None, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int | None, *, address: str, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


def post(
    *, url: str, body: bytes, headers: dict[str, str], timeout: float, allow_private: bool
) -> Outcome:
    """POST `body`; never raises for what the network or the receiver does: the outcome says."""
    started = time.monotonic()

    def outcome(status: int | None, error: str = "") -> Outcome:
        latency = int((time.monotonic() - started) * 1000)
        return Outcome(status_code=status, latency_ms=latency, error=error[:ERROR_MAX])

    parts = urlsplit(url)
    host = parts.hostname or ""
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    try:
        check_url(url, allow_private=allow_private)
        address = _public_addresses(host, port)[0] if not allow_private else _first(host, port)
    except TargetRefused as exc:
        return outcome(None, f"Refused: {exc}")
    except OSError as exc:
        return outcome(None, f"Could not resolve {host}: {exc}")
    connection_type = _PinnedHTTPS if secure else _PinnedHTTP
    connection = connection_type(host, port, address=address, timeout=timeout)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(RESPONSE_READ_MAX)
    except TimeoutError:
        return outcome(None, f"No answer within {timeout:g} s")
    except (OSError, http.client.HTTPException) as exc:
        return outcome(None, f"{type(exc).__name__}: {exc}")
    finally:
        connection.close()
    if 300 <= response.status < 400:
        return outcome(response.status, "Redirects are not followed: give the final URL")
    if not 200 <= response.status < 300:
        return outcome(response.status, f"The receiver answered {response.status}")
    return outcome(response.status)


def _first(host: str, port: int) -> str:
    return str(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][4][0])
