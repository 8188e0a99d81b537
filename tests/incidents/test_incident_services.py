"""Services: failed-run upload and analysis, incident clocks, checklist gating, baseline checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from acceptance.models import ReservationStatus
from core.lifecycle import MoveRefused
from incidents import services
from incidents.models import FailedRunState, IncidentEvidenceKind
from incidents.selectors import checklist_states, clock_rows, lost_time
from tests.incidents.helpers import RECOVERY, recovery_file, scenario_upload

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def incident(analysed, buyer) -> Any:
    return services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)


def test_an_upload_is_stored_then_analysed(analysed) -> None:
    assert analysed.state == FailedRunState.ANALYSED, analysed.error
    assert analysed.analysis["first_failure"]["rank"] == 137
    assert analysed.analysis["suggested_owner"] == "provider"
    assert len(analysed.analysis["secondary_ranks"]) == 255
    (stored,) = analysed.files.all()
    assert len(stored.sha256) == 64 and stored.size > 0
    assert analysed.world_size == 16  # from the fixture's allocation, not the bundle


def test_only_an_accepted_reservation_takes_failed_runs(accepted, provider) -> None:
    accepted.reservation.status = ReservationStatus.PENDING
    accepted.reservation.save()
    with pytest.raises(ValidationError, match="accepted reservation"):
        services.failed_run_upload(
            reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()]
        )


def test_the_proposed_severity_and_the_acknowledged_clocks(incident) -> None:
    assert incident.severity == incident.proposed_severity == "S1"
    assert "acknowledged by provider" in incident.terms_source
    assert incident.clocks["S1"] == {"response_minutes": 15, "restore_minutes": 240}
    assert incident.window["first_bad_at"].startswith(str(incident.failed_at.date()))


def test_clocks_show_time_left_and_flag_a_breach(incident) -> None:
    rows = {r["key"]: r for r in clock_rows(incident, now=OPENED + timedelta(minutes=10))}
    assert not rows["response"]["breached"] and rows["response"]["left_text"] == "5 min 00 s"
    rows = {r["key"]: r for r in clock_rows(incident, now=OPENED + timedelta(minutes=20))}
    assert rows["response"]["breached"] and rows["response"]["left_text"].endswith("overdue")
    assert not rows["restore"]["breached"]


def test_a_recorded_response_stops_its_clock(incident, provider) -> None:
    services.incident_mark(
        incident=incident, user=provider.user, what="responded", now=OPENED + timedelta(minutes=9)
    )
    rows = {r["key"]: r for r in clock_rows(incident, now=OPENED + timedelta(hours=3))}
    assert not rows["response"]["breached"] and rows["response"]["done_at"] is not None
    with pytest.raises(ValidationError, match="already recorded"):
        services.incident_mark(incident=incident, user=provider.user, what="responded")


def test_a_different_severity_needs_a_reason(analysed, buyer) -> None:
    with pytest.raises(ValidationError) as exc:
        services.incident_open(failed_run=analysed, user=buyer.user, severity="S2")
    assert "S1 was proposed" in str(exc.value)
    incident = services.incident_open(
        failed_run=analysed, user=buyer.user, severity="S2", reason="job restarted on spares"
    )
    assert incident.severity == "S2" and incident.minutes("response_minutes") == 60


def _states(incident: Any) -> dict[str, Any]:
    return {s.key: s for s in checklist_states(incident)}


def test_nccl_is_compared_with_the_hand_over_baseline(incident, provider) -> None:
    assert _states(incident)["nccl_margin_pct"].status == "waiting"
    services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="nccl-tests",
        upload=recovery_file("nccl_all_reduce_degraded.txt"),
    )  # fmt: skip
    state = _states(incident)["nccl_margin_pct"]
    assert state.status == "fail" and "all_reduce" in state.measured
    services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="nccl-tests",
        upload=recovery_file("nccl_all_reduce_recovered.txt"),
    )  # fmt: skip
    assert _states(incident)["nccl_margin_pct"].status == "pass"


def _scaled_steps(factor: float) -> bytes:
    lines = (RECOVERY / "pre_incident_steps.csv").read_text().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        rank, node, step, seconds = line.split(",")
        out.append(f"{rank},{node},{step},{float(seconds) * factor:.4f}")
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize(("factor", "status"), [(1.02, "pass"), (1.5, "fail")])
def test_smoke_run_within_or_over_the_margin(incident, provider, factor, status) -> None:
    services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="smoke-steps",
        upload=recovery_file("smoke.csv", _scaled_steps(factor)),
    )  # fmt: skip
    assert _states(incident)["smoke_step_time_margin_pct"].status == status


def test_close_is_refused_until_every_item_passes(incident, buyer, provider) -> None:
    with pytest.raises(ValidationError) as exc:
        services.incident_close(incident=incident, user=buyer.user, confirmed=True)
    assert "nccl-tests bus bandwidth" in str(exc.value) and "loss" in str(exc.value)
    for name, kind in [
        ("nccl_all_reduce_recovered.txt", "nccl-tests"),
        ("pre_incident_steps.csv", "smoke-steps"),
        ("megatron_resumed_continuous.log", "training-log"),
    ]:
        services.incident_evidence_upload(
            incident=incident, user=provider.user, kind=kind, upload=recovery_file(name)
        )
    for key in ("nccl_margin_pct", "loss_continuity"):
        with pytest.raises(ValidationError, match="checked against uploaded evidence"):
            services.incident_signoff(incident=incident, user=buyer.user, key=key, note="fine")
    signable = [s for s in checklist_states(incident) if not s.passed]
    assert {s.key for s in signable} == {"diagnostics", "no_recurrence_hours"}
    services.incident_signoff(incident=incident, user=buyer.user, key="diagnostics", note="ok")
    with pytest.raises(ValidationError, match="no recurrence"):
        services.incident_close(incident=incident, user=buyer.user, confirmed=True)
    restored = OPENED + timedelta(hours=1)
    services.incident_mark(incident=incident, user=provider.user, what="restored", now=restored)
    services.incident_signoff(
        incident=incident, user=provider.user, key="no_recurrence_hours", note="48 h clean",
        now=restored + timedelta(hours=49),
    )  # fmt: skip
    closed = services.incident_close(incident=incident, user=buyer.user, confirmed=True)
    assert closed.closed_at is not None and closed.restored_at == restored


def _ready_to_close(incident: Any, buyer: Any, provider: Any) -> None:
    for name, kind in [
        ("nccl_all_reduce_recovered.txt", "nccl-tests"),
        ("pre_incident_steps.csv", "smoke-steps"),
        ("megatron_resumed_continuous.log", "training-log"),
    ]:
        services.incident_evidence_upload(
            incident=incident, user=provider.user, kind=kind, upload=recovery_file(name)
        )
    restored = OPENED + timedelta(hours=1)
    services.incident_mark(incident=incident, user=provider.user, what="restored", now=restored)
    services.incident_signoff(incident=incident, user=buyer.user, key="diagnostics", note="ok")
    services.incident_signoff(
        incident=incident, user=provider.user, key="no_recurrence_hours", note="48 h clean",
        now=restored + timedelta(hours=49),
    )  # fmt: skip


def test_the_provider_cannot_close_an_s1_alone(incident, buyer, provider) -> None:
    """The provider declares it restored and signs its own items; the buyer confirms the end."""
    assert incident.severity in ("S1", "S2")
    _ready_to_close(incident, buyer, provider)
    with pytest.raises(MoveRefused, match="Only the buyer confirms") as refused:
        services.incident_close(incident=incident, user=provider.user)
    assert refused.value.status_code == 409
    assert (
        services.incident_close(incident=incident, user=buyer.user, confirmed=True).closed_at
        is not None
    )


def test_each_party_signs_off_only_its_own_items(incident, buyer, provider) -> None:
    with pytest.raises(MoveRefused, match="the buyer's to sign off"):
        services.incident_signoff(
            incident=incident, user=provider.user, key="diagnostics", note="looks fine"
        )
    with pytest.raises(MoveRefused, match="Only the provider can do this: Record the response"):
        services.incident_mark(incident=incident, user=buyer.user, what="responded")


def test_no_recurrence_cannot_be_signed_before_its_hours_have_passed(incident, provider) -> None:
    restored = OPENED + timedelta(hours=1)
    services.incident_mark(incident=incident, user=provider.user, what="restored", now=restored)
    with pytest.raises(ValidationError, match="can be signed from"):
        services.incident_signoff(
            incident=incident, user=provider.user, key="no_recurrence_hours", note="clean",
            now=restored + timedelta(minutes=1),
        )  # fmt: skip


def test_a_dispute_is_recorded_and_reopens_the_item(incident, buyer, provider) -> None:
    _ready_to_close(incident, buyer, provider)
    with pytest.raises(MoveRefused, match="Only the other party"):
        services.incident_dispute(
            incident=incident, user=provider.user, key="no_recurrence_hours", reason="mine"
        )
    dispute = services.incident_dispute(
        incident=incident, user=buyer.user, key="no_recurrence_hours",
        reason="The same node threw Xid 79 again at 03:12 UTC.",
    )  # fmt: skip
    assert (dispute.party, dispute.disputed_by_party, dispute.disputed_note) == (
        "buyer", "provider", "48 h clean",
    )  # fmt: skip
    states = {s.key: s for s in checklist_states(incident)}
    assert not states["no_recurrence_hours"].passed
    with pytest.raises(ValidationError, match="no recurrence"):
        services.incident_close(incident=incident, user=buyer.user, confirmed=True)


def test_checkpoint_listing_names_the_resume_point(incident, provider) -> None:
    incident.window = {"first_bad_step": 1450}
    incident.save()
    row = services.incident_evidence_upload(
        incident=incident, user=provider.user, kind=IncidentEvidenceKind.CHECKPOINTS,
        upload=recovery_file("ckpt.json", (RECOVERY.parent / "checkpoints" /
                                           "deepspeed_latest.json").read_bytes()),
    )  # fmt: skip
    assert row.ok, row.error
    incident.refresh_from_db()
    assert incident.checkpoint["checkpoint"] == "global_step1400"
    assert incident.checkpoint["rewind_steps"] == 50


def test_an_unreadable_listing_is_stored_and_says_why(incident, provider) -> None:
    row = services.incident_evidence_upload(
        incident=incident, user=provider.user, kind="checkpoints",
        upload=recovery_file("ckpt.json", b"{not json"),
    )  # fmt: skip
    assert not row.ok and "invalid JSON" in row.error and row.sha256


def test_lost_gpu_hours_from_the_incident_marks(incident) -> None:
    assert "last checkpoint" in lost_time(incident)["missing"]
    services.incident_set_times(
        incident=incident,
        user=None,
        gpus=16,
        failed_at=OPENED - timedelta(minutes=30),
        last_checkpoint_at=OPENED - timedelta(hours=1, minutes=30),
    )
    incident.restored_at = OPENED + timedelta(hours=2)
    incident.revalidated_at = OPENED + timedelta(hours=3)
    incident.restarted_at = OPENED + timedelta(hours=3, minutes=30)
    lost = lost_time(incident)
    assert [r["gpu_hours"] for r in lost["rows"]] == [16.0, 8.0, 32.0, 16.0, 8.0]
    assert lost["total"] == 80.0


def test_a_first_failure_without_its_own_time_starts_the_clocks_at_its_earlier_bound(
    analysed, buyer
) -> None:
    # A line with no timestamp (a bare traceback line) is placed between its neighbours.
    first = {**analysed.analysis["first_failure"], "time": None}
    first["time_range"] = {
        "after": "2025-03-01T11:40:05+00:00",
        "before": "2025-03-01T11:41:00+00:00",
    }
    analysed.analysis = {**analysed.analysis, "first_failure": first}
    analysed.save(update_fields=["analysis"])
    incident = services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)
    assert incident.failed_at == datetime(2025, 3, 1, 11, 40, 5, tzinfo=UTC)
