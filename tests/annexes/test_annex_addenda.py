"""The contract annex states the addenda every invitee was told while bidding was open."""

from __future__ import annotations

import pytest

from annexes.document.snapshot import contract_snapshot
from bids.services import addendum_publish
from tests.annexes.test_annex_award import _contract_text

TEXT = "Site visits are possible on 3 March with photo ID."


@pytest.fixture
def addendum(world, buyer):
    # Before `awarded` closes the request: an addendum is published while bidding is open.
    return addendum_publish(
        capacity_request=world.request,
        user=buyer.user,
        title="Site visit",
        text=TEXT,
        confirmed=True,
    )


def test_the_annex_prints_each_addendum(
    addendum, awarded, buyer, django_capture_on_commit_callbacks
):
    snapshot = contract_snapshot(capacity_request=awarded.request)
    assert [(a["number"], a["title"], a["text"]) for a in snapshot["addenda"]] == [
        (1, "Site visit", TEXT)
    ]
    text = _contract_text(awarded.request, buyer.user, django_capture_on_commit_callbacks)
    assert "Addendum 1, published" in text and "Site visit. " + TEXT in text


def test_a_request_without_addenda_keeps_its_snapshot_as_before(awarded):
    # Annexes issued before addenda existed keep their checksum: no empty key is added.
    assert "addenda" not in contract_snapshot(capacity_request=awarded.request)
