"""Requests made when a request required one isolation class accept that class and every
stronger one after the migration; migrating back keeps the weakest kind accepted."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("bids", "0008_supplier_invitation_expired_at")]
AFTER = [("bids", "0009_offer_kinds")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_a_required_class_becomes_that_class_and_every_stronger_one():
    old = _migrate(BEFORE)
    try:
        org = old.get_model("orgs", "Organization").objects.create(
            name="Buyer", slug="mig-buyer", kind="buyer"
        )
        CapacityRequest = old.get_model("bids", "CapacityRequest")
        common = {
            "buyer": org,
            "gpu_model": "H200",
            "gpu_count": 8,
            "nodes": 1,
            "gpus_per_node": 8,
            "reservation_start": date(2027, 2, 1),
            "reservation_end": date(2027, 4, 30),
            "bid_deadline": timezone.make_aware(datetime(2027, 1, 1)) + timedelta(hours=1),
            "acceptable_regions": ["eu"],
        }
        ids = {
            required: CapacityRequest.objects.create(
                title=required, isolation_class=required, **common
            ).pk
            for required in ("whole_device", "mig", "time_sliced")
        }
        new = _migrate(AFTER)
        rows = new.get_model("bids", "CapacityRequest").objects.in_bulk(list(ids.values()))
        assert {k: rows[pk].accepted_offer_kinds for k, pk in ids.items()} == {
            "whole_device": ["whole_device"],
            "mig": ["whole_device", "mig"],
            "time_sliced": ["whole_device", "mig", "time_sliced"],
        }
        back = _migrate(BEFORE)
        rows = back.get_model("bids", "CapacityRequest").objects.in_bulk(list(ids.values()))
        assert {k: rows[pk].isolation_class for k, pk in ids.items()} == {
            "whole_device": "whole_device",
            "mig": "mig",
            "time_sliced": "time_sliced",
        }
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
