"""Helpers to enumerate every named URL, so a route without a tenancy row fails the suite."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver

# Routes that need no tenancy row: Django's own, reached only by staff or by everybody.
EXEMPT_PREFIXES = ("admin:",)
EXEMPT_NAMES = {"login", "logout", "home", "healthz"}


def named_routes() -> set[str]:
    names: set[str] = set()

    def walk(patterns: list, namespace: str) -> None:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                ns = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                walk(entry.url_patterns, ns)
            elif isinstance(entry, URLPattern) and entry.name:
                names.add(f"{namespace}{entry.name}")

    walk(get_resolver().url_patterns, "")
    return {n for n in names if n not in EXEMPT_NAMES and not n.startswith(EXEMPT_PREFIXES)}
