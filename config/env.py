"""Typed readers for environment variables.

Each helper fails loudly with the variable's name, so a typo in deployment stops start-up
instead of running with a surprising value.
"""

from __future__ import annotations

import base64
import os
import re
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_choice(name: str, default: str, *, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, default).strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of true/false/1/0/yes/no, got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int_list(name: str, default: list[int], *, minimum: int = 0) -> list[int]:
    """Comma-separated integers, each at least `minimum`, without repeats, largest first."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    values = set()
    for item in raw.split(","):
        if not item.strip():
            continue
        try:
            value = int(item)
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"{name} must be comma-separated integers, got {item.strip()!r} in {raw!r}"
            ) from exc
        if value < minimum:
            raise ImproperlyConfigured(f"{name} values must be at least {minimum}, got {value}")
        values.add(value)
    return sorted(values, reverse=True)


# A statement run this many times on one connection is prepared: PostgreSQL plans it once, where
# planning took longer than running most of this app's queries. Parameters are then bound by the
# server (Django's option), as preparing needs.
PREPARED = {"server_side_binding": True, "prepare_threshold": 5}


def database_from_url(name: str, url: str, *, prepared: bool = False) -> dict[str, object]:
    """Translate DATABASE_URL into Django's DATABASES entry (postgres or sqlite only).
    `prepared`: PostgreSQL prepares statements a connection runs again (`PREPARED`)."""
    parsed = urlparse(url)
    if parsed.scheme in {"postgres", "postgresql", "postgresql+psycopg"}:
        options = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        return {
            "ENGINE": "config.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "OPTIONS": {**(PREPARED if prepared else {}), **options},
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    if parsed.scheme == "sqlite":
        path = unquote(parsed.path)
        if not path or path == "/":
            raise ImproperlyConfigured(f"{name} names no SQLite file: {url!r}")
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path[1:] if path.startswith("//") else path,
        }
    raise ImproperlyConfigured(
        f"{name} must start with postgres:// or sqlite:///, got scheme {parsed.scheme!r}"
    )


_RATE_PERIODS = {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}


def env_rate(name: str, default: str) -> str:
    """A DRF throttle rate such as '60/min' (requests per second, minute, hour or day)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    count, _, period = raw.strip().partition("/")
    if not count.isdigit() or int(count) < 1 or period.strip().lower() not in _RATE_PERIODS:
        raise ImproperlyConfigured(
            f"{name} must look like 60/min (a positive count per s, min, hour or day), got {raw!r}"
        )
    return f"{int(count)}/{period.strip().lower()}"


_HEADER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]*$")


def env_header(name: str) -> str:
    """An HTTP request header named in the environment (`X-Forwarded-For`), returned as its key
    in Django's `request.META` (`HTTP_X_FORWARDED_FOR`); empty when unset."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return ""
    if raw.upper().startswith("HTTP_"):
        raw = raw[5:].replace("_", "-")
    if not _HEADER_NAME.match(raw):
        raise ImproperlyConfigured(
            f"{name} must be an HTTP header name such as X-Forwarded-For or X-Real-IP, got {raw!r}"
        )
    return "HTTP_" + raw.upper().replace("-", "_")


def env_fernet_keys(name: str, *, default: str, required: bool) -> list[str]:
    """Comma-separated Fernet keys (urlsafe base64 of 32 bytes): the first encrypts, every one
    decrypts, so an old key stays listed after the new one while stored secrets are re-encrypted.
    `required` (production) refuses the embedded `default`, which only a demo or a test may use;
    an empty `default` makes the variable optional (no keys when unset)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        if required:
            raise ImproperlyConfigured(
                f"{name} must be set in production: it encrypts the organisations' signing keys "
                "at rest. Make one with: python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())'"
            )
        raw = default
    keys = [key.strip() for key in raw.split(",") if key.strip()]
    if raw and not keys:
        raise ImproperlyConfigured(f"{name} lists no key: {raw!r}")
    for position, key in enumerate(keys, start=1):
        try:
            decoded = base64.urlsafe_b64decode(key.encode("ascii"))
        except (ValueError, UnicodeEncodeError):
            decoded = b""
        if len(decoded) != 32:
            raise ImproperlyConfigured(
                f"{name}: key {position} is not a Fernet key (urlsafe base64 of 32 bytes, "
                "44 characters ending in '=')"
            )
    return keys
