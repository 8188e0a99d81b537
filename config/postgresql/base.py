"""Django's PostgreSQL backend, reading time stamps through psycopg's own loader when it can.

Django stamps every `timestamptz` it reads with its connection's zone through a subclass of
psycopg's pure-Python loader, so each value is parsed in Python: on a 50-row list that was a
tenth of the call. When both zones are UTC (Django sets the session's to its own), psycopg's
default loader (the C one that psycopg[binary] installs) already returns the same aware
datetime, so that one is used. Any other zone keeps Django's loader.
"""

from __future__ import annotations

from datetime import UTC
from functools import cache
from typing import Any, cast

from django.db.backends.postgresql import base
from psycopg import adapt, adapters
from psycopg.abc import AdaptContext
from psycopg.pq import Format

_TIMESTAMPTZ = adapters.types["timestamptz"].oid
# psycopg registers one for every type it knows; with psycopg[binary] it is the C one.
_DEFAULT_LOADER = cast(type[adapt.Loader], adapters.get_loader(_TIMESTAMPTZ, Format.TEXT))


class UtcTimestamptzLoader(adapt.Loader):
    """psycopg's default loader under the class attribute Django looks for: Django's cursor
    compares `timezone` with the connection's before it registers its own loader (the C loader
    is a final type, so it is wrapped rather than subclassed)."""

    timezone = UTC

    def __init__(self, oid: int, context: AdaptContext | None = None) -> None:
        super().__init__(oid, context)
        # psycopg calls `load` once per value: the default loader's own, bound here once.
        self.load = _DEFAULT_LOADER(oid, context).load  # type: ignore[method-assign]

    def load(self, data: Any) -> Any:  # replaced per instance above
        raise NotImplementedError


@cache
def _utc_context(template: adapt.AdaptersMap) -> adapt.AdaptersMap:
    context = adapt.AdaptersMap(template)
    context.register_loader("timestamptz", UtcTimestamptzLoader)
    return context


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params: dict[str, Any] = super().get_connection_params()
        if self.timezone == UTC and self.timezone_name == "UTC" and "context" in params:
            params["context"] = _utc_context(params["context"])
        return params
