"""Award, then the buyer's decision: accept on a pass (the clock starts at the later of that
and the term's first day), reject; a failing gate goes through an override (test_override)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from acceptance.models import Acknowledgement, DecisionKind, Reservation, ReservationStatus
from acceptance.services.award import request_award
from acceptance.services.decision import reservation_accept, reservation_reject
from bids.choices import BidStatus, RequestStatus
from bids.models import CapacityRequest
from core.lifecycle import MoveRefused
from tests.acceptance.burnin.helpers import (
    GOOD_SET,
    attach_fixture,
    file_upload,
    two_node_spec,
    upload_all,
)

pytestmark = pytest.mark.django_db


def test_award_sets_winner_losers_and_pins_revision_and_fixture(awarded):
    assert awarded.request.status == RequestStatus.AWARDED
    assert awarded.bid.status == BidStatus.AWARDED
    assert awarded.rival_bid.status == BidStatus.LOST
    res = awarded.reservation
    assert res.status == ReservationStatus.PENDING
    assert res.bid_revision.number == awarded.bid.latest_revision_number
    assert res.fixture_version.spec == two_node_spec()


def test_award_pins_the_version_the_bid_acknowledged(world, buyer, provider):
    from acceptance.models import FixtureVersion

    acknowledged = attach_fixture(world.request, two_node_spec())
    Acknowledgement.objects.create(
        bid=world.bid, fixture_version=acknowledged, status="accepted", by=provider.user
    )
    newer_spec = two_node_spec() | {"name": "tightened"}
    FixtureVersion.objects.create(
        fixture=acknowledged.fixture,
        number=2,
        template="x",
        spec=newer_spec,
        spec_sha256="b" * 64,
        manifest={},
    )
    acknowledged.fixture.current_number = 2
    acknowledged.fixture.save()
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    reservation = request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    assert reservation.fixture_version == acknowledged


def test_award_waits_for_the_deadline(world, buyer):
    attach_fixture(world.request, two_node_spec())
    with pytest.raises(ValidationError, match="still open"):
        request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)


def test_award_needs_a_fixture(world, buyer):
    world.request.status = RequestStatus.CLOSED
    world.request.save()
    with pytest.raises(ValidationError, match="fixture"):
        request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)


def test_accept_on_a_passing_gate_starts_the_clock_and_stores_the_baseline(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    decision = reservation_accept(reservation=awarded.reservation, run=awarded.run, user=buyer.user)
    awarded.reservation.refresh_from_db()
    assert awarded.reservation.status == ReservationStatus.ACCEPTED
    assert decision.kind == DecisionKind.ACCEPTED and decision.by == buyer.user
    snapshot = awarded.reservation.baseline.snapshot
    assert snapshot["accepted_at"] == decision.at.isoformat()
    assert snapshot["run"]["id"] == awarded.run.pk
    (nccl,) = snapshot["nccl"]
    assert nccl["collective"] == "all_reduce" and nccl["nccl_version"] == "2.27.3"
    assert nccl["command"].startswith("all_reduce_perf -b 8 -e 8589934592 -f 2")
    assert nccl["large_message_busbw_min_gbps"] > 431
    assert snapshot["nodes"]["gpu-a01"]["gpus"] == 8
    assert snapshot["nodes"]["gpu-a02"]["ib_ports_active"] >= 8
    assert snapshot["versions"]["driver"] == ["560.35.03"]


def test_accept_is_refused_while_the_gate_fails(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    with pytest.raises(MoveRefused) as caught:
        reservation_accept(reservation=awarded.reservation, run=awarded.run, user=buyer.user)
    assert caught.value.status_code == 409
    assert "ask for an override" in caught.value.messages[0]
    awarded.reservation.refresh_from_db()
    assert awarded.reservation.status == ReservationStatus.PENDING


def test_accept_waits_for_current_checks(awarded, buyer, provider, monkeypatch):
    from acceptance.services import burnin

    monkeypatch.setattr(burnin, "_queue_parse", lambda e: None)
    burnin.evidence_upload(
        run=awarded.run,
        user=provider.user,
        upload=file_upload("burnin/fixture-result/fixture_16ranks.jsonl"),
    )
    awarded.run.refresh_from_db()
    with pytest.raises(ValidationError, match="not up to date"):
        reservation_accept(reservation=awarded.reservation, run=awarded.run, user=buyer.user)


def test_reject_needs_a_reason_and_is_final(awarded, buyer):
    with pytest.raises(ValidationError):
        reservation_reject(reservation=awarded.reservation, user=buyer.user, reason="  ")
    reservation_reject(reservation=awarded.reservation, user=buyer.user, reason="No IB fabric.")
    with pytest.raises(ValidationError, match="that is rejected cannot be rejected"):
        reservation_reject(reservation=awarded.reservation, user=buyer.user, reason="again")


def test_the_clock_starts_on_the_terms_first_day_when_accepted_before_it(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    decision = reservation_accept(reservation=awarded.reservation, run=awarded.run, user=buyer.user)
    reservation = Reservation.objects.get(pk=awarded.reservation.pk)
    start = awarded.request.reservation_start  # 60 days ahead (the factory's term)
    assert reservation.clock_starts_at == datetime.combine(start, time.min, tzinfo=UTC)
    assert reservation.clock_starts_at > decision.at
    assert (
        reservation.baseline.snapshot["clock_starts_at"] == reservation.clock_starts_at.isoformat()
    )
    html = buyer.client().get(reverse("burnin:reservation-detail", args=[reservation.pk]))
    clock = html.content.decode()
    assert f"starts {start:%-d %b %Y} 00:00 UTC" in clock
    assert "the term's first day: accepted" in clock


def test_the_clock_starts_at_acceptance_once_the_term_has_begun(
    awarded, buyer, provider, django_capture_on_commit_callbacks
):
    CapacityRequest.objects.filter(pk=awarded.request.pk).update(
        reservation_start=timezone.localdate() - timedelta(days=3)
    )
    upload_all(awarded.run, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    reservation = Reservation.objects.get(pk=awarded.reservation.pk)
    decision = reservation_accept(reservation=reservation, run=awarded.run, user=buyer.user)
    reservation.refresh_from_db()
    assert reservation.clock_starts_at == decision.at
    html = buyer.client().get(reverse("burnin:reservation-detail", args=[reservation.pk]))
    assert "(at acceptance)" in html.content.decode()
