"""A kept copy's life: its horizon, midnight UTC, whichever comes first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.http import HttpResponse

from core import read_cache


def test_a_kept_copy_lives_until_its_horizon_and_never_past_midnight_utc():
    evening = datetime(2026, 12, 5, 23, 59, 30, tzinfo=UTC)
    number = read_cache.lookup("read:test-night", evening)[0]
    read_cache.keep("read:test-night", number, HttpResponse(b"{}"), evening, None)
    assert read_cache.lookup("read:test-night", evening + timedelta(seconds=29))[1] is not None
    assert read_cache.lookup("read:test-night", evening + timedelta(seconds=31))[1] is None

    noon = datetime(2026, 12, 5, 12, tzinfo=UTC)
    deadline = noon + timedelta(seconds=5)
    read_cache.keep("read:test-noon", number, HttpResponse(b"{}"), noon, deadline)
    assert read_cache.lookup("read:test-noon", deadline - timedelta(seconds=1))[1] is not None
    assert read_cache.lookup("read:test-noon", deadline)[1] is None
