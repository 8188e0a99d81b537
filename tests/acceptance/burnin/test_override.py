"""Acceptance over a failing gate: one buyer asks (a full sentence, every blocking check waived
explicitly, a confirmation), a second buyer-side approver decides. The overridden run is not
the recovery baseline unless the buyer chose it; the clock starts no earlier than the term."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from acceptance.lifecycle import case_for
from acceptance.models import (
    BaselineSource,
    DecisionKind,
    OverrideOutcome,
    OverrideRequest,
    Reservation,
    ReservationStatus,
)
from acceptance.selectors.override import blocking_checks
from acceptance.services.decision import reservation_accept
from acceptance.services.override import override_approve, override_decline, override_request
from audit.models import AuditEntry
from core.lifecycle import MoveRefused
from notices.choices import Event
from notices.models import Notice
from tests.acceptance.burnin.helpers import GOOD_SET, upload_all

pytestmark = pytest.mark.django_db
REASON = "The provider swaps the slow switch next week; credits are agreed in writing."
SLOW = ("burnin/nccl-tests/all_reduce_2node_slow.txt", "")


@pytest.fixture
def failing(awarded, provider, django_capture_on_commit_callbacks) -> Any:
    """The awarded reservation whose run fails the gate on all_reduce bus bandwidth."""
    files = [f for f in GOOD_SET if "all_reduce" not in f[0]] + [SLOW]
    upload_all(awarded.run, provider.user, files, django_capture_on_commit_callbacks)
    assert awarded.run.checks_current and not awarded.run.gate_passed
    return awarded


def _codes(run: Any) -> list[str]:
    return [c["code"] for c in blocking_checks(run=run)]


def _ask(awarded: Any, user: Any, **changes: Any) -> OverrideRequest:
    values: dict[str, Any] = {
        "reason": REASON,
        "waived": _codes(awarded.run),
        "baseline_from_run": False,
        "confirmed": True,
    }
    return override_request(
        reservation=awarded.reservation, run=awarded.run, user=user, **(values | changes)
    )


def test_ok_with_one_click_is_refused_field_by_field(failing, buyer_requester):
    with pytest.raises(ValidationError) as caught:
        _ask(failing, buyer_requester.user, reason="ok", waived=[], confirmed=False)
    errors = caught.value.message_dict
    assert "write why, in at least one full sentence" in errors["reason"][0]
    (blocking,) = blocking_checks(run=failing.run)
    assert f"1 of 1 not ticked ({blocking['title']})" in errors["waived"][0]
    assert "Confirm" in errors["confirm"][0]
    assert not OverrideRequest.objects.exists()
    assert Reservation.objects.get(pk=failing.reservation.pk).is_pending


def test_a_stale_check_code_is_named(failing, buyer_requester):
    with pytest.raises(ValidationError) as caught:
        _ask(failing, buyer_requester.user, waived=[*_codes(failing.run), "gpu-query-gpu-model"])
    assert "do not block this run's gate now: gpu-query-gpu-model" in str(caught.value)


def test_the_request_freezes_the_waived_checks_and_waits_for_a_second_person(
    failing, buyer_requester, provider
):
    override = _ask(failing, buyer_requester.user)
    assert override.outcome == OverrideOutcome.PENDING
    (waived,) = override.waived
    assert waived["code"].startswith("nccl-tests-all_reduce") and "431" in waived["expected"]
    reservation = Reservation.objects.get(pk=failing.reservation.pk)
    assert reservation.status == ReservationStatus.PENDING  # not accepted by one person
    entry = AuditEntry.objects.get(action="reservation.override_request")
    assert entry.reason == REASON and entry.after["waived"] == [waived["code"]]
    assert entry.after["baseline"] == "contracted"
    # The requester may not approve; neither may the provider.
    for user, code in [(buyer_requester.user, 403), (provider.user, 403)]:
        with pytest.raises(MoveRefused) as refused:
            override_approve(override=override, user=user)
        assert refused.value.status_code == code
    # A second request on top of the pending one is refused by state.
    with pytest.raises(MoveRefused) as second:
        _ask(failing, buyer_requester.user)
    assert second.value.status_code == 409


def test_an_approver_who_asked_cannot_approve_their_own_request(failing, buyer_approver):
    override = _ask(failing, buyer_approver.user)
    with pytest.raises(MoveRefused, match="You asked for this override"):
        override_approve(override=override, user=buyer_approver.user)


def test_a_second_approver_accepts_on_the_contracted_baseline(
    failing, buyer_requester, buyer_approver, provider
):
    override = _ask(failing, buyer_requester.user)
    decision = override_approve(override=override, user=buyer_approver.user)
    assert decision.kind == DecisionKind.OVERRIDE and decision.by == buyer_approver.user
    assert decision.override == override and decision.reason == REASON
    override.refresh_from_db()
    assert override.outcome == OverrideOutcome.APPROVED
    assert override.decided_by == buyer_approver.user
    reservation = Reservation.objects.get(pk=failing.reservation.pk)
    assert reservation.status == ReservationStatus.ACCEPTED
    # The term starts 60 days after today: the clock waits for it.
    start = datetime.combine(failing.request.reservation_start, time.min, tzinfo=UTC)
    assert reservation.clock_starts_at == start > decision.at
    baseline = reservation.baseline
    assert baseline.source == BaselineSource.CONTRACTED and baseline.run == failing.run
    (nccl,) = baseline.snapshot["nccl"]
    assert nccl["collective"] == "all_reduce" and nccl["large_message_busbw_min_gbps"] == 431.0
    entry = AuditEntry.objects.get(action="reservation.override_approve")
    assert entry.after["requested_by"] == "rhea" and entry.after["approved_by"] == "abel"
    assert entry.after["baseline"] == "contracted"
    # The decision reaches the provider as any acceptance does.
    notice = Notice.objects.get(recipient=provider.user, event=Event.ACCEPTANCE_DECIDED)
    assert "accepted over a failing gate" in notice.subject


def test_the_run_is_the_baseline_only_when_the_buyer_chose_it(
    failing, buyer_requester, buyer_approver
):
    override = _ask(failing, buyer_requester.user, baseline_from_run=True)
    override_approve(override=override, user=buyer_approver.user)
    baseline = Reservation.objects.get(pk=failing.reservation.pk).baseline
    assert baseline.source == BaselineSource.RUN
    (nccl,) = baseline.snapshot["nccl"]
    assert nccl["large_message_busbw_min_gbps"] < 431  # the overridden run's own figure


def test_new_evidence_after_the_request_refuses_the_approval(
    failing, buyer_requester, buyer_approver, provider, django_capture_on_commit_callbacks
):
    override = _ask(failing, buyer_requester.user)
    upload_all(
        failing.run,
        provider.user,
        [("burnin/nccl-tests/all_reduce_2node_pass.txt", "")],
        django_capture_on_commit_callbacks,
    )
    with pytest.raises(MoveRefused) as refused:
        override_approve(override=override, user=buyer_approver.user)
    assert refused.value.status_code == 409 and "changed since the override" in str(refused.value)
    assert Reservation.objects.get(pk=failing.reservation.pk).is_pending
    override_decline(override=override, user=buyer_approver.user, reason="Evidence changed.")
    override.refresh_from_db()
    assert override.outcome == OverrideOutcome.DECLINED


def test_a_decline_needs_a_reason_and_leaves_the_reservation_pending(
    failing, buyer_requester, buyer_approver
):
    override = _ask(failing, buyer_requester.user)
    with pytest.raises(MoveRefused):
        override_decline(override=override, user=buyer_requester.user, reason="Mine anyway.")
    with pytest.raises(ValidationError) as caught:
        override_decline(override=override, user=buyer_approver.user, reason="  ")
    assert "reason" in caught.value.message_dict
    override_decline(override=override, user=buyer_approver.user, reason="Get the fix first.")
    override.refresh_from_db()
    assert (override.outcome, override.decline_reason) == ("declined", "Get the fix first.")
    assert AuditEntry.objects.get(action="reservation.override_decline").reason == (
        "Get the fix first."
    )
    reservation = Reservation.objects.get(pk=failing.reservation.pk)
    assert reservation.is_pending and case_for(reservation).override is None
    _ask(failing, buyer_requester.user)  # a new request may follow


def test_accepting_a_passing_run_withdraws_the_pending_override(
    failing, buyer, buyer_requester, provider, django_capture_on_commit_callbacks
):
    override = _ask(failing, buyer_requester.user)
    from acceptance.services.burnin import run_create

    second = run_create(reservation=failing.reservation, user=provider.user, label="After fix")
    upload_all(second, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    reservation_accept(reservation=failing.reservation, run=second, user=buyer.user)
    override.refresh_from_db()
    assert override.outcome == OverrideOutcome.WITHDRAWN
    assert "accepted run “After fix”" in override.decline_reason
    baseline = Reservation.objects.get(pk=failing.reservation.pk).baseline
    assert baseline.source == BaselineSource.RUN and baseline.run == second


def test_the_approvers_hear_of_a_request_and_the_requester_of_a_decline(
    failing, buyer, buyer_requester, buyer_approver, provider
):
    override = _ask(failing, buyer_requester.user)
    asked = Notice.objects.filter(event=Event.OVERRIDE_APPROVAL)
    # The approvers and admins of the buyer, never the one who asked, never the provider.
    recipients = {n.recipient_id for n in asked}
    assert buyer_approver.user.pk in recipients
    assert buyer_requester.user.pk not in recipients and provider.user.pk not in recipients
    notice = asked.get(recipient=buyer_approver.user)
    assert "over a failing gate" in notice.subject and REASON in notice.body
    override_decline(override=override, user=buyer_approver.user, reason="Not before the swap.")
    (declined,) = Notice.objects.filter(recipient=buyer_requester.user)
    assert "declined" in declined.subject and "Not before the swap." in declined.body
