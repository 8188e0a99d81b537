"""PostgreSQL prepares a statement a connection runs again, so it is planned once."""

from __future__ import annotations

import pytest
from django.db import connection

from config.env import PREPARED, database_from_url
from orgs.models import Organization
from tests.conftest import require_service

pytestmark = pytest.mark.django_db


def test_a_statement_run_again_is_prepared_on_the_server():
    require_service(connection.vendor == "postgresql", "prepared statements need PostgreSQL")
    for _ in range(PREPARED["prepare_threshold"] + 1):
        list(Organization.objects.filter(slug="nobody").values_list("pk"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("bids_organization" in s and "slug" in s for s in prepared), prepared


def test_prepared_statements_can_be_turned_off_for_a_pooler():
    url = "postgres://cb:pw@db.internal:5432/clusterbid"
    assert database_from_url("DATABASE_URL", url, prepared=True)["OPTIONS"] == PREPARED
    assert database_from_url("DATABASE_URL", url, prepared=False)["OPTIONS"] == {}
    # An option the URL names wins (`?prepare_threshold=...` for one deployment's needs).
    with_option = database_from_url("DATABASE_URL", url + "?sslmode=require", prepared=True)
    assert with_option["OPTIONS"] == {**PREPARED, "sslmode": "require"}
