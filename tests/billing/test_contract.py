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


def test_a_degraded_s2_is_out_for_the_share_the_acknowledged_terms_agree(contracted):
    from acceptance.models import Acknowledgement
    from contracts.models import HandoffTermsRevision
    from incidents.selectors import terms_for

    reservation = contracted.reservation
    revision, snapshot, _source = terms_for(reservation)
    assert revision is not None
    # Terms agreeing 50 %, acknowledged by the provider: a new revision, as an edit makes one.
    agreed = HandoffTermsRevision.objects.create(
        terms=revision.terms, number=revision.number + 1, sha256="0" * 64,
        snapshot={**snapshot, "degraded_downtime_pct": "50.0"},
    )  # fmt: skip
    ack = Acknowledgement.objects.filter(bid_id=reservation.bid_id).latest("at")
    ack.pk, ack.terms_revision = None, agreed
    ack.save()
    t = datetime(2026, 4, 2, 10, tzinfo=UTC)
    s2 = _incident(reservation, "S2", ["gpu-b01"], t, datetime(2026, 4, 2, 14, tzinfo=UTC))

    contract = contract_for(reservation=reservation)

    start = int(t.timestamp())
    assert contract.outages == [
        Outage("gpu-b01", start, start + 4 * 3600, f"incident #{s2.pk} (S2, 50 % of it)", 500)
    ]
