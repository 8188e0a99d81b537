"""What the contract allows, read from the reservation: the accepted term, the bid's money, and
the outages of the incidents whose severity the terms count as downtime."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from acceptance.models import Reservation
from billing.selectors import contract_for
from engine.billing import Outage
from incidents.models import Incident
from tests.billing.conftest import CLOCK, NODES

pytestmark = pytest.mark.django_db

TERM_END = datetime(2026, 6, 1, tzinfo=UTC)  # 00:00 UTC the day after 31 May


def _incident(reservation, severity, nodes, opened, restored=None):
    return Incident.objects.create(
        reservation=reservation,
        severity=severity,
        proposed_severity=severity,
        nodes=nodes,
        opened_at=opened,
        restored_at=restored,
        clocks={},
    )


def test_the_contract_holds_the_term_the_bid_and_the_downtime_outages(contracted):
    reservation = contracted.reservation
    t = datetime(2026, 4, 2, 10, tzinfo=UTC)
    s3 = _incident(reservation, "S3", ["gpu-b02"], t, datetime(2026, 4, 2, 12, tzinfo=UTC))
    s1 = _incident(reservation, "S1", [], datetime(2026, 5, 30, tzinfo=UTC))  # still open
    _incident(reservation, "S2", ["gpu-b01"], t, datetime(2026, 4, 2, 11, tzinfo=UTC))

    contract = contract_for(reservation=reservation, credits_usd=Decimal("12.34"))

    assert contract.clock_start == int(CLOCK.timestamp())
    assert contract.term_end == int(TERM_END.timestamp())
    assert (contract.rate, contract.fees, contract.egress) == (2_500_000, 10**9, 500_000_000)
    assert contract.credits == 12_340_000
    # The allocation: the awarded 2 × 8 GPUs, on the nodes the hand-over burn-in ran on.
    assert (contract.nodes, contract.node_count, contract.node_gpus) == (NODES, 2, 8)
    assert contract.currency == "USD"
    assert contract.outages == [
        Outage("gpu-b02", int(t.timestamp()), int(t.timestamp()) + 7200, f"incident #{s3.pk} (S3)"),
        Outage("", int(s1.opened_at.timestamp()), contract.term_end, f"incident #{s1.pk} (S1)"),
    ]


def test_a_pending_reservation_has_no_term(world, buyer):
    from tests.acceptance.burnin.helpers import award

    with pytest.raises(ValueError, match="has not been accepted"):
        contract_for(reservation=award(world, buyer).reservation)


def test_without_a_burn_in_baseline_the_allocation_is_its_node_count(contracted):
    contracted.reservation.baseline.delete()
    reservation = Reservation.objects.get(pk=contracted.reservation.pk)
    contract = contract_for(reservation=reservation)
    assert (contract.nodes, contract.node_count, contract.node_gpus) == ((), 2, 8)
