"""The data generation: a number in the shared cache that moves after every committed database
write, so that a response built from the database can be kept under a key naming the number and
is never served once the data under it changed.

Writes are seen where they reach the database: every statement through Django's cursors
(ORM saves, `QuerySet.update()`, bulk calls, raw SQL, migrations) passes `_watch`. A write in
autocommit mode moves the number at once; a write inside a transaction moves it when that
transaction commits, and until then the connection reports `has_pending_writes`, so the writing
request's own reads skip kept copies. A reader that took the number while a write was still
uncommitted may keep what it read under that number, but the commit moves the number past it.

Sound only when every process that writes shares the cache (Redis: `CACHE_URL`); settings turn
the read cache on only then (`READ_CACHE`)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db.backends.base.base import BaseDatabaseWrapper

log = logging.getLogger(__name__)

KEY = "data-generation"

# Statements that change nothing. Everything else (INSERT, UPDATE, DELETE, TRUNCATE, DDL, a
# data-modifying WITH) counts as a write: a spurious move only costs a miss.
_READS = (
    "SELECT",
    "SAVEPOINT",
    "RELEASE",
    "ROLLBACK",
    "BEGIN",
    "COMMIT",
    "SET ",
    "SHOW",
    "PRAGMA",
    "EXPLAIN",
)


def current() -> int:
    """The number now. Missing (first use, eviction, a flush): a random start, so that no number
    handed out before can come back."""
    value = cache.get(KEY)
    if value is None:
        cache.add(KEY, secrets.randbits(62))
        value = cache.get(KEY)
    return int(value)


def advance() -> None:
    """Move the number. A cache outage must not fail the write that asked: it is logged, and
    kept copies then live out their timeout (`READ_CACHE_SECONDS`)."""
    try:
        try:
            cache.incr(KEY)
        except ValueError:  # missing
            cache.add(KEY, secrets.randbits(62))
    except Exception:
        log.exception("Could not advance the data generation; kept reads may lag a write")


def has_pending_writes(connection: BaseDatabaseWrapper) -> bool:
    """Whether this connection's open transaction wrote: its reads must not use kept copies,
    which cannot show what it has not committed."""
    # Entries are (savepoint ids, function, robust).
    return connection.in_atomic_block and any(
        entry[1] is advance for entry in connection.run_on_commit
    )


def _wrote(connection: BaseDatabaseWrapper) -> None:
    if not connection.in_atomic_block:
        advance()  # autocommit: the statement has committed
    elif not has_pending_writes(connection):
        connection.on_commit(advance)


def _watch(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    result = execute(sql, params, many, context)
    # The head alone: a statement can run to megabytes (long IN lists, bulk inserts).
    if not sql[:32].lstrip()[:10].upper().startswith(_READS):
        _wrote(context["connection"])
    return result


def watch(connection: BaseDatabaseWrapper, **_: Any) -> None:
    """Install the watch on a connection (the `connection_created` signal calls this)."""
    if _watch not in connection.execute_wrappers:
        connection.execute_wrappers.append(_watch)
