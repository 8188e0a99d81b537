"""The annex prints the buyer's checkpoint interval when stated; a request without one keeps the
snapshot (and so the checksum) it had before the field existed."""

from __future__ import annotations

import pytest

from annexes.document.present import _request_section
from annexes.document.snapshot import request_part
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db


def _rows(part):
    [table] = [b for b in _request_section({"request": part})["blocks"] if b.get("rows")]
    return {str(label): value for label, value in table["rows"]}


def test_a_stated_interval_is_printed_with_the_workload():
    part = request_part(CapacityRequestFactory(checkpoint_interval_minutes=60), both_parties=True)
    assert part["checkpoint_interval_minutes"] == 60
    assert _rows(part)["Checkpoint interval (min)"] == "60"


def test_an_unstated_interval_leaves_the_snapshot_as_it_was():
    part = request_part(CapacityRequestFactory(checkpoint_interval_minutes=None), both_parties=True)
    assert "checkpoint_interval_minutes" not in part
    assert "Checkpoint interval (min)" not in _rows(part)
