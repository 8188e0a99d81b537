"""A lot's reservation is checked on the nodes it won, against its lot's fixture where the lot
has its own: a two-node lot of a four-node request passes with evidence from its two nodes."""

from __future__ import annotations

from decimal import Decimal

import pytest

from acceptance.services import burnin as services
from acceptance.services.award import AwardPiece, request_award, request_award_split
from bids.services import request_close
from tests.acceptance.burnin.helpers import GOOD_SET, attach_fixture, two_node_spec, upload_all
from tests.factories import LotFactory

pytestmark = pytest.mark.django_db


def _four_node_spec():
    """The request's fixture: the two-node spec widened to the request's four nodes."""
    spec = two_node_spec()
    spec["allocation"]["nodes"], spec["allocation"]["gpus"] = 4, 32
    return spec


def _lot_run(world, buyer):
    world.request.nodes, world.request.gpu_count = 4, 32
    world.request.save(update_fields=["nodes", "gpu_count"])
    lot = LotFactory(
        request=world.request, nodes=4, gpus_per_node=8, divisible=True, min_block_nodes=2
    )
    attach_fixture(world.request, _four_node_spec())
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    [reservation] = request_award_split(
        capacity_request=world.request,
        pieces=[AwardPiece(bid=world.bid, lot=lot, nodes=2, price_per_gpu_hour=Decimal("2.5"))],
        user=buyer.user,
    )
    return services.run_create(reservation=reservation, user=buyer.user, label="Lot burn-in")


def test_a_two_node_lot_reservation_passes_with_evidence_for_its_own_two_nodes(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    run = _lot_run(world, buyer)
    upload_all(run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    assert run.checks_current and run.gate_passed, run.gate_summary
    ib = run.checks.get(name="ibstat: every node")
    assert ib.status == "pass" and "all 2 nodes" in ib.message
    assert not run.checks.filter(status__in=["fail", "missing"]).exists()


def test_the_same_evidence_misses_nodes_on_a_whole_four_node_reservation(
    world, buyer, provider, django_capture_on_commit_callbacks
):
    """The control: the request's own reservation holds all four nodes, so two are missing."""
    world.request.nodes, world.request.gpu_count = 4, 32
    world.request.save(update_fields=["nodes", "gpu_count"])
    attach_fixture(world.request, _four_node_spec())
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    run = services.run_create(reservation=reservation, user=buyer.user, label="Whole burn-in")
    upload_all(run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    assert run.gate_passed is False
    ib = run.checks.get(name="ibstat: every node")
    assert ib.status == "missing" and "2 of the 4 nodes" in ib.message
