"""The contract annex of a reservation accepted over a failing gate names both people, the
reason, every waived check, which baseline applies and when the reservation clock starts."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

import pytest

from acceptance.models import BurnInRun, Check, ChecksState, Reservation
from acceptance.selectors.override import blocking_checks
from acceptance.services.override import override_approve, override_request
from tests.annexes.test_annex_award import _contract_text

pytestmark = pytest.mark.django_db
REASON = "The provider replaces the H100 nodes before the term starts; credits are agreed."


def _failing_run(reservation: Reservation, user: Any) -> BurnInRun:
    run = BurnInRun.objects.create(
        reservation=reservation, label="Burn-in 1", created_by=user, evidence_version=1,
        checked_version=1, checks_state=ChecksState.DONE, gate_passed=False,
        gate_summary="gate failed: 2 of 3 mandatory checks block",
    )  # fmt: skip
    rows = [
        ("gpu-query: GPU model", "fail", "NVIDIA H100 80GB HBM3", "H200", "gpu-a01"),
        ("nccl-tests all_reduce: large-message busbw", "fail", "142.0 GB/s", "≥ 360 GB/s", ""),
        ("ibstat: ports active at rate", "pass", "8 of 8", "8 at 400 Gb/s", "gpu-a01"),
    ]
    for position, (name, status, measured, expected, node) in enumerate(rows):
        Check.objects.create(
            run=run, version=1, position=position, name=name, group=name.split(":")[0],
            status=status, measured=measured, expected=expected, node=node,
        )  # fmt: skip
    return run


@pytest.mark.parametrize("from_run", [False, True])
def test_the_annex_names_both_people_the_reason_the_waived_checks_and_the_baseline(
    awarded, buyer_requester, buyer_approver, django_capture_on_commit_callbacks, from_run
):
    reservation = Reservation.objects.get(request=awarded.request)
    run = _failing_run(reservation, buyer_requester.user)
    override = override_request(
        reservation=reservation, run=run, user=buyer_requester.user, reason=REASON,
        waived=[c["code"] for c in blocking_checks(run=run)], baseline_from_run=from_run,
        confirmed=True,
    )  # fmt: skip
    override_approve(override=override, user=buyer_approver.user)
    text = _contract_text(awarded.request, buyer_approver.user, django_capture_on_commit_callbacks)
    assert "Accepted over a failing gate (override)" in text
    assert "Requested by rhea" in text and "Approved by abel" in text
    assert REASON in text
    assert "Waived blocking checks (2)" in text
    assert "gpu-query: GPU model on gpu-a01: fail" in text and "NVIDIA H100 80GB HBM3" in text
    assert "nccl-tests all_reduce: large-message busbw: fail" in text
    assert "ibstat" not in text.split("Waived blocking checks")[1].split("Contracted")[0]
    start = datetime.combine(awarded.request.reservation_start, time.min, tzinfo=UTC)
    assert f"Reservation clock starts {start:%-d %b %Y} 00:00 UTC" in text
    if from_run:
        assert "The overridden run “Burn-in 1”, as the buyer chose explicitly" in text
    else:
        assert "The contracted thresholds: the overridden run is not the baseline" in text
        assert "Contracted floors recovery is measured against" in text
