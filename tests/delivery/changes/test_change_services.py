"""Planned changes and their canaries: the provider announces inside an agreed window with the
notice the terms ask and a canary on some of the nodes; the canary's evidence goes through the
burn-in pipeline; the buyer answers before the window; the window's opening writes the outcome."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from acceptance.models import Evidence
from acceptance.selectors.canary import canary_comparison
from acceptance.services import burnin as burnin_services
from audit.models import AuditEntry
from core.lifecycle import MoveRefused
from delivery import services
from delivery.changes import change_answer, change_window_open
from delivery.models import PlannedChange
from delivery.selectors import delivery_for
from delivery.tasks import open_change_windows
from incidents.models import ChangeKind, ChangeLogEntry, ChangeStatus
from notices.choices import Event
from notices.models import Notice
from tests.acceptance.burnin.helpers import GOOD_SET, file_upload
from tests.delivery.changes.helpers import (
    FAILING,
    PASSING,
    announce,
    change_world,
    upload_canary,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cw(buyer, provider, rival_provider, django_capture_on_commit_callbacks):
    return change_world(buyer, provider, django_capture_on_commit_callbacks)


def test_an_announced_change_is_on_the_change_log_and_the_buyer_hears(cw, buyer, provider):
    change = announce(cw, provider)
    entry = ChangeLogEntry.objects.get()
    assert (entry.reservation_id, entry.incident_id) == (cw.reservation.pk, None)
    assert entry.kind == ChangeKind.RELEASE and entry.status == ChangeStatus.PROPOSED
    assert entry.proposed_party == "provider" and "560.35.03 → 570.124.06" in entry.what
    assert change.canary.nodes == ["gpu-a01", "gpu-a02"]
    assert change.canary.closes_at == cw.window.starts_at
    notice = Notice.objects.get(event=Event.CHANGE_ANNOUNCED)
    assert notice.recipient == buyer.user and "NVIDIA driver" in notice.subject
    audit = AuditEntry.objects.get(action="change.announce")
    assert audit.party == "provider" and audit.after["canary_nodes"] == ["gpu-a01", "gpu-a02"]


def test_a_change_announced_with_less_notice_than_the_terms_is_refused(cw, buyer, provider):
    soon = services.maintenance_announce(
        reservation=cw.reservation, user=provider.user, starts_at=cw.now + timedelta(hours=30),
        ends_at=cw.now + timedelta(hours=32), reason="Firmware", now=cw.now,
    )  # fmt: skip
    services.maintenance_agree(window=soon, user=buyer.user)
    with pytest.raises(ValidationError) as short:
        announce(cw, provider, window=soon)
    message = short.value.message_dict["window"][0]
    assert "72 h notice" in message and "opens in 30.0 h" in message
    assert not PlannedChange.objects.exists() and not ChangeLogEntry.objects.exists()


def test_a_window_the_buyer_has_not_agreed_to_is_refused(cw, buyer, provider):
    soon = services.maintenance_announce(
        reservation=cw.reservation, user=provider.user, starts_at=cw.now + timedelta(hours=30),
        ends_at=cw.now + timedelta(hours=32), reason="Firmware", now=cw.now,
    )  # fmt: skip
    with pytest.raises(ValidationError) as awaiting:
        announce(cw, provider, window=soon)
    assert "has not agreed" in awaiting.value.message_dict["window"][0]


def test_a_canary_on_every_node_or_off_the_change_is_refused(cw, provider):
    with pytest.raises(ValidationError) as every:
        announce(cw, provider, canary_nodes="gpu-a01 gpu-a02 gpu-a03 gpu-a04")
    assert "fewer nodes than the change reaches (4)" in every.value.message_dict["canary_nodes"][0]
    with pytest.raises(ValidationError) as stray:
        announce(cw, provider, canary_nodes="gpu-b09")
    assert "gpu-b09 is not among" in stray.value.message_dict["canary_nodes"][0]
    with pytest.raises(ValidationError) as none:
        announce(cw, provider, canary_nodes="")
    assert "canary_nodes" in none.value.message_dict
    assert not PlannedChange.objects.exists()


def test_a_whole_allocation_canary_names_one_of_the_reservations_nodes(cw, provider):
    # While the record names two of the four nodes, an unknown label may be an unnamed node.
    assert announce(cw, provider, nodes="", canary_nodes="gpu-a03").canary.nodes == ["gpu-a03"]
    # The burn-in evidence named two nodes and an earlier window the other two: the record
    # names all four, so a fifth label is a typo, not a node.
    services.maintenance_announce(
        reservation=cw.reservation, user=provider.user, nodes="gpu-a03 gpu-a04",
        starts_at=cw.now + timedelta(days=6), ends_at=cw.now + timedelta(days=6, hours=1),
        reason="Cabling", now=cw.now,
    )  # fmt: skip
    with pytest.raises(ValidationError) as typo:
        announce(cw, provider, nodes="", canary_nodes="gpu-a1")
    message = typo.value.message_dict["canary_nodes"][0]
    assert message.startswith("gpu-a1 is not one of this reservation's nodes (gpu-a01,")
    with pytest.raises(ValidationError) as reach:
        announce(cw, provider, nodes="gpu-a01 gpu-x2", canary_nodes="gpu-a01")
    assert "gpu-x2 is not one of this reservation's nodes" in reach.value.message_dict["nodes"][0]
    change = announce(cw, provider, nodes="", canary_nodes="gpu-a04")
    assert change.canary.nodes == ["gpu-a04"]


def test_only_the_providers_team_announces(cw, buyer, provider):
    with pytest.raises(MoveRefused) as refused:
        announce(cw, buyer)
    assert refused.value.status_code == 403


def test_a_passing_canary_is_checked_told_to_both_and_compared_with_the_burn_in(
    cw, buyer, provider, django_capture_on_commit_callbacks
):
    change = announce(cw, provider)
    run = upload_canary(change, provider.user, PASSING, django_capture_on_commit_callbacks)
    assert {e.state for e in Evidence.objects.filter(run=run)} == {"parsed"}
    assert run.checks_current and run.gate_passed is True, run.gate_summary
    notices = Notice.objects.filter(event=Event.CANARY_CHECKED)
    assert {n.recipient for n in notices} == {buyer.user, provider.user}
    assert all("Canary passed" in n.subject for n in notices)
    rows = {r.name: r for r in canary_comparison(canary=change.canary, run=run)}
    busbw = next(r for name, r in rows.items() if "all_reduce" in name and "busbw" in name)
    # The same evidence before and after: the same figure on both sides.
    assert busbw.before and busbw.before == busbw.after
    # The accepted run ran on four nodes' worth of fixture; the canary's world is its two nodes.
    world_size = next(r for name, r in rows.items() if "rank" in name.lower())
    assert world_size.after_status == "pass"
    # The burn-in ran the old driver, the canary the new one: the row shows both.
    driver = next(r for name, r in rows.items() if "driver version" in name)
    assert (driver.before, driver.after, driver.expected) == (
        "560.35.03",
        "570.124.06",
        "570.124.06",
    )
    assert AuditEntry.objects.filter(action="canary.evidence_upload").count() == len(PASSING)
    change_answer(change=change, user=buyer.user, accept=True)
    opened = change_window_open(change=change, now=cw.window.starts_at)
    assert opened.canary_passed is True and opened.unguarded is False
    assert ChangeLogEntry.objects.get().status == ChangeStatus.APPLIED


def test_a_driver_canary_still_on_the_old_driver_fails_naming_the_version(
    cw, provider, django_capture_on_commit_callbacks
):
    change = announce(cw, provider)
    run = upload_canary(change, provider.user, GOOD_SET, django_capture_on_commit_callbacks)
    assert run.checks_current and run.gate_passed is False
    failed = [c for c in run.checks.all() if c.name == "gpu-query: driver version"]
    assert {c.status for c in failed} == {"fail"}
    assert "Driver on gpu-a01 is 560.35.03; 570.124.06 agreed." in {c.message for c in failed}


def test_a_failing_canary_rolled_out_counts_as_downtime(
    cw, buyer, provider, django_capture_on_commit_callbacks
):
    change = announce(cw, provider)
    run = upload_canary(change, provider.user, FAILING, django_capture_on_commit_callbacks)
    assert run.checks_current and run.gate_passed is False
    assert "Canary did not pass" in Notice.objects.filter(event=Event.CANARY_CHECKED)[0].subject
    before = delivery_for(reservation=cw.reservation, now=cw.window.ends_at)
    opened = change_window_open(change=change, now=cw.window.starts_at)
    assert opened.unguarded and opened.canary_passed is False
    assert opened.outcome.startswith("Rolled out without a passing canary")
    after = delivery_for(reservation=cw.reservation, now=cw.window.ends_at)
    assert before.report is not None and after.report is not None
    assert after.report.availability_pct.value < before.report.availability_pct.value
    assert AuditEntry.objects.get(action="change.window_open").party == "system"
    # Written once: a second sweep changes nothing.
    assert change_window_open(change=change, now=cw.window.ends_at).outcome == opened.outcome


def test_an_absent_canary_or_an_objection_rolls_out_unguarded(cw, buyer, provider):
    quiet = announce(cw, provider)
    assert change_window_open(change=quiet, now=cw.window.starts_at).unguarded
    objected = announce(cw, provider, component="HCA firmware", kind="firmware",
                        from_version="28.39", to_version="28.41")  # fmt: skip
    with pytest.raises(ValidationError):
        change_answer(change=objected, user=buyer.user, accept=False, reason=" ")
    change_answer(change=objected, user=buyer.user, accept=False, reason="Mid training run.")
    entry = ChangeLogEntry.objects.get(planned_change=objected)
    assert entry.status == ChangeStatus.DECLINED and entry.decision_note == "Mid training run."
    assert Notice.objects.get(event=Event.CHANGE_ANSWERED).recipient == provider.user
    assert AuditEntry.objects.get(action="change.object").reason == "Mid training run."
    opened = change_window_open(change=objected, now=cw.window.starts_at)
    assert opened.unguarded and "the buyer objected (Mid training run.)" in opened.outcome


def test_the_provider_cannot_answer_and_nobody_answers_after_the_window_opens(cw, buyer, provider):
    change = announce(cw, provider)
    with pytest.raises(MoveRefused) as own:
        change_answer(change=change, user=provider.user, accept=True)
    assert own.value.status_code == 403
    # A window that opened an hour ago, announced (with the change) days before.
    past = services.maintenance_announce(
        reservation=cw.reservation, user=provider.user, starts_at=cw.now - timedelta(hours=1),
        ends_at=cw.now + timedelta(hours=3), reason="Firmware", now=cw.now - timedelta(days=6),
    )  # fmt: skip
    opened = announce(cw, provider, window=past, now=cw.now - timedelta(days=5))
    with pytest.raises(MoveRefused) as late:
        change_answer(change=opened, user=buyer.user, accept=False, reason="Too late")
    assert late.value.status_code == 409 and "in or past its window" in str(late.value)
    # The canary closed with the window: no more evidence.
    with pytest.raises(MoveRefused) as closed:
        burnin_services.evidence_upload(
            run=opened.canary.run, user=provider.user,
            upload=file_upload(PASSING[0][0]), node="",
        )  # fmt: skip
    assert "closed by its change window" in str(closed.value)
    # The worker's sweep writes the opened window's outcome, once.
    assert open_change_windows() == 1 and open_change_windows() == 0
    opened.refresh_from_db()
    assert opened.unguarded and "no canary result was checked" in opened.outcome


def test_the_buyer_cannot_upload_the_providers_canary(cw, buyer, provider):
    change = announce(cw, provider)
    with pytest.raises(MoveRefused) as refused:
        burnin_services.evidence_upload(
            run=change.canary.run, user=buyer.user, upload=file_upload(PASSING[0][0]), node=""
        )
    assert refused.value.status_code == 403


def test_an_unreadable_canary_file_names_its_line_and_is_retried_or_withdrawn(
    cw, provider, django_capture_on_commit_callbacks
):
    change = announce(cw, provider)
    broken = [("nccl-tests/broken_short_row_mid_table.txt", "")]
    run = upload_canary(change, provider.user, broken, django_capture_on_commit_callbacks)
    evidence = Evidence.objects.get(run=run)
    assert evidence.state == "unreadable" and evidence.error_line
    with django_capture_on_commit_callbacks(execute=True):
        burnin_services.evidence_retry(evidence=evidence, user=provider.user)
    burnin_services.evidence_withdraw(evidence=evidence, user=provider.user)
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"canary.evidence_retry", "canary.evidence_withdraw"} <= actions
