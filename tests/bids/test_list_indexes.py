"""The request list's orderings read an index: EXPLAIN on PostgreSQL, with
sequential scans and sorts priced out so that a handful of test rows cannot hide a missing
index. (With sorts allowed, a stale one-row estimate let the planner take the buyer's foreign
key index and sort, whatever other indexes exist: the test failed at random in CI.)"""

from __future__ import annotations

import pytest
from django.db import connection

from bids.selectors import request_list_for_buyer
from tests.conftest import require_service
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


def _plan(queryset) -> str:
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.parametrize(
    ("ordering", "index"),
    [("-created_at", "request_buyer_newest"), ("bid_deadline", "request_buyer_deadline")],
)
def test_a_buyers_list_reads_its_index(buyer, ordering, index):
    require_service(connection.vendor == "postgresql", "EXPLAIN plans are PostgreSQL's")
    for _ in range(3):
        CapacityRequestFactory(buyer=buyer.org)
    page = request_list_for_buyer(org=buyer.org, counts=False).order_by(ordering)[:50]
    plan = _plan(page)
    assert index in plan and "Sort" not in plan, plan


def test_a_buyers_status_filter_reads_its_index(buyer):
    require_service(connection.vendor == "postgresql", "EXPLAIN plans are PostgreSQL's")
    CapacityRequestFactory(buyer=buyer.org)
    plan = _plan(request_list_for_buyer(org=buyer.org, counts=False).filter(status="open"))
    assert "request_buyer_status" in plan or "request_buyer_newest" in plan, plan
