"""Time stamps read through psycopg's own loader come back exactly as Django's loader gave them."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader

from config.postgresql.base import DatabaseWrapper, UtcTimestamptzLoader
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

TIMESTAMPTZ, TEXT = 1184, 0
PARIS = ZoneInfo("Europe/Paris")
STAMPS = [
    datetime(2026, 12, 7, 0, 12, 34, 567891, tzinfo=UTC),
    datetime(1969, 7, 20, 20, 17, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    # A moment written in another zone is read back as the same instant, in UTC.
    datetime(2026, 3, 29, 3, 30, tzinfo=PARIS),
]


def _read_back(conn, stamps: list[datetime]) -> list[datetime | None]:
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT s FROM unnest(%s::timestamptz[]) WITH ORDINALITY AS t(s, n) ORDER BY n",
            [[*stamps, None]],
        )
        return [row[0] for row in cursor.fetchall()]


def test_time_stamps_read_in_c_equal_what_django_read():
    require_service(connection.vendor == "postgresql", "the backend is PostgreSQL's")
    connection.ensure_connection()
    assert connection.connection.adapters.get_loader(TIMESTAMPTZ, TEXT) is UtcTimestamptzLoader
    got = _read_back(connection, STAMPS)
    assert got == [*STAMPS, None]
    assert all(value.tzinfo is UTC for value in got if value is not None)
    assert [v.isoformat() for v in got if v] == [s.astimezone(UTC).isoformat() for s in STAMPS]


def test_a_connection_in_another_zone_keeps_djangos_loader():
    require_service(connection.vendor == "postgresql", "the backend is PostgreSQL's")
    paris = DatabaseWrapper({**connection.settings_dict, "TIME_ZONE": "Europe/Paris"}, "paris")
    try:
        loader = paris.get_connection_params()["context"].get_loader(TIMESTAMPTZ, TEXT)
        assert issubclass(loader, BaseTzLoader) and loader.timezone == PARIS
        got = _read_back(paris, STAMPS[:1])
        assert got[0] == STAMPS[0] and got[0].tzinfo == PARIS
    finally:
        paris.close()
