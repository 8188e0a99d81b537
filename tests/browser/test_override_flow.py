"""Acceptance over a failing gate in a real browser, as named roles: the buyer's requester asks
(reason, every blocking check ticked, confirmation); nothing is accepted until a second person
approves, and the requester cannot; the buyer's approver approves and the reservation is
accepted, naming both."""

from __future__ import annotations

from typing import Any

import pytest

from acceptance.models import (
    BaselineSource,
    OverrideOutcome,
    OverrideRequest,
    Reservation,
    ReservationStatus,
)
from acceptance.services.award import request_award
from acceptance.services.burnin import run_create
from bids.services import request_close
from tests.acceptance.burnin.helpers import GOOD_SET, attach_fixture, media_root, two_node_spec
from tests.acceptance.burnin.helpers import upload as upload_file

__all__ = ["media_root"]  # autouse: uploads go to a temporary MEDIA_ROOT
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
REASON = "The provider replaces the slow leaf switch next week; service credits are agreed."


def _failing_reservation(world: Any, buyer: Any, provider: Any) -> tuple[Reservation, Any]:
    attach_fixture(world.request, two_node_spec())
    request_close(capacity_request=world.request, user=buyer.user, confirmed=True)
    reservation = request_award(capacity_request=world.request, bid=world.bid, user=buyer.user)
    run = run_create(reservation=reservation, user=provider.user, label="Burn-in 1")
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]]
    files.append(("burnin/nccl-tests/all_reduce_2node_slow.txt", ""))
    for name, node in files:  # each commit queues its parse and re-check (run in-process)
        upload_file(run, provider.user, name, node)
    run.refresh_from_db()
    assert run.checks_current and not run.gate_passed
    return reservation, run


def test_an_override_needs_a_second_buyer_approver(
    live_server, new_page, login_as, world, buyer, provider, buyer_requester, buyer_approver
):
    reservation, run = _failing_reservation(world, buyer, provider)
    run_url = f"{live_server.url}/runs/{run.pk}/"
    reservation_url = f"{live_server.url}/reservations/{reservation.pk}/"

    requester = login_as(new_page(), "rhea")
    requester.goto(run_url)
    assert requester.is_disabled("#accept-button")
    # One click with "ok" is refused, field by field.
    requester.fill("#id_reason", "ok")
    requester.click("#override-form button[type=submit]")
    assert "full sentence" in requester.inner_text("#id_reason_error")
    assert "not ticked" in requester.inner_text("#id_waived_error")
    assert requester.input_value("#id_reason") == "ok"  # what was typed stays

    requester.fill("#id_reason", REASON)
    boxes = requester.locator("#waived input[type=checkbox]")
    assert boxes.count() >= 1
    for index in range(boxes.count()):
        boxes.nth(index).check()
    assert not requester.is_checked("#id_baseline_from_run")  # contracted thresholds by default
    requester.check("#id_confirm")
    requester.click("#override-form button[type=submit]")
    requester.wait_for_selector("#override-request")
    assert "awaiting a second approver" in requester.inner_text("#override-request")
    # Without an approver nothing is accepted, and the requester cannot approve.
    assert requester.locator("#approve-override").count() == 0
    assert "yours is Requester" in requester.inner_text("#approve-blocked")
    assert Reservation.objects.get(pk=reservation.pk).status == ReservationStatus.PENDING
    assert OverrideRequest.objects.get().outcome == OverrideOutcome.PENDING

    approver = login_as(new_page(), "abel")
    approver.on("dialog", lambda dialog: dialog.accept())
    approver.goto(reservation_url)
    assert REASON in approver.inner_text("#override-request")
    approver.click("#approve-override")
    approver.wait_for_selector("text=the reservation is accepted")
    assert approver.inner_text("#override-requester") == "rhea"
    assert approver.inner_text("#override-approver") == "abel"
    assert "the contracted thresholds" in approver.inner_text("#baseline-source")
    accepted = Reservation.objects.get(pk=reservation.pk)
    assert accepted.status == ReservationStatus.ACCEPTED
    assert accepted.baseline.source == BaselineSource.CONTRACTED
    assert "starts" in approver.inner_text("#clock")
