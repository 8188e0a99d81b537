"""The engine is plain Python: its tests never touch the database, so a run of tests/engine
alone never creates one. A test here that asks for it fails before the database is set up."""

from __future__ import annotations

import pytest

DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_setup",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    wanted = sorted(DATABASE_FIXTURES.intersection(getattr(item, "fixturenames", ())))
    if item.get_closest_marker("django_db") is not None:
        wanted.append("the django_db mark")
    if wanted:
        pytest.fail(
            f"engine tests run without a database; {item.nodeid} asks for {', '.join(wanted)}",
            pytrace=False,
        )
