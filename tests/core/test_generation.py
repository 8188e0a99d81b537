"""The data generation moves after every committed write, whatever path the write took, and
never for a read; an open transaction that wrote reports it until it ends."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from bids.models import CapacityRequest
from core import generation
from tests.factories import CapacityRequestFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_committed_writes_move_it_whatever_their_path(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    for write in (
        lambda: req.save(),
        lambda: CapacityRequest.objects.filter(pk=req.pk).update(title="Renamed"),
        lambda: connection.cursor().execute("UPDATE bids_capacityrequest SET sealed = false"),
        lambda: CapacityRequestFactory(buyer=buyer.org).delete(),
    ):
        before = generation.current()
        write()
        assert generation.current() > before


def test_reads_leave_it_alone(buyer):
    CapacityRequestFactory(buyer=buyer.org)
    before = generation.current()
    list(CapacityRequest.objects.all())
    with transaction.atomic():
        list(CapacityRequest.objects.select_for_update())
    assert generation.current() == before


def test_a_transaction_moves_it_at_commit_and_says_it_wrote_until_then(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    before = generation.current()
    with transaction.atomic():
        assert not generation.has_pending_writes(connection)
        CapacityRequest.objects.filter(pk=req.pk).update(title="Renamed")
        CapacityRequest.objects.filter(pk=req.pk).update(title="Renamed again")
        assert generation.has_pending_writes(connection)
        assert generation.current() == before  # not yet: nobody else can read it yet
    assert generation.current() == before + 1
    assert not generation.has_pending_writes(connection)


def test_a_rolled_back_transaction_leaves_it_and_no_pending_write(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    before = generation.current()
    with pytest.raises(RuntimeError), transaction.atomic():
        CapacityRequest.objects.filter(pk=req.pk).update(title="Renamed")
        raise RuntimeError
    assert generation.current() == before
    assert not generation.has_pending_writes(connection)


def test_a_write_on_another_connection_moves_it_for_this_one(buyer):
    req = CapacityRequestFactory(buyer=buyer.org)
    before = generation.current()

    def elsewhere() -> None:
        CapacityRequest.objects.filter(pk=req.pk).update(title="From a worker")
        connection.close()

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert generation.current() > before


def test_a_lost_counter_starts_again_where_no_old_number_can_repeat(buyer):
    from django.core.cache import cache

    cache.delete(generation.KEY)
    first = generation.current()
    cache.delete(generation.KEY)
    assert generation.current() != first
