"""Incident helpers: severity, contract clocks, recovery checklist, lost GPU-hours."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.failures import (
    IncidentTermsError,
    analyse,
    clock_status,
    incident_clocks,
    lost_gpu_hours,
    propose_severity,
    recovery_checklist,
)
from engine.failures.synthetic import Scenario, cascade

CLOCKS = {
    "S1": {"response_minutes": 15, "restore_minutes": 240},
    "S2": {"response_minutes": 60, "restore_minutes": 1440},
    "S3": {"response_minutes": 120, "restore_minutes": 2880},
}
DETECTED = datetime(2024, 5, 1, 12, 5, tzinfo=UTC)


def test_severity_s1_when_the_job_is_down_and_s3_when_it_continues() -> None:
    a = analyse(cascade(Scenario(ranks=16, culprit=9)), year=2024)
    assert propose_severity(a).severity == "S1"
    s3 = propose_severity(a, job_continues=True)
    assert s3.severity == "S3" and "node-1" in s3.reason
    assert propose_severity(a, degraded=True).severity == "S2"


def test_clocks_run_from_detection() -> None:
    due = incident_clocks(severity="S1", detected_at=DETECTED, clocks=CLOCKS)
    assert due.response_due == DETECTED + timedelta(minutes=15)
    assert due.restore_due == DETECTED + timedelta(hours=4)
    status = clock_status(due, now=DETECTED + timedelta(minutes=20))
    assert status.response_breached and not status.restore_breached
    assert status.response_left == timedelta(minutes=-5)
    met = clock_status(due, now=DETECTED + timedelta(hours=9), responded_at=DETECTED,
                       restored_at=DETECTED + timedelta(hours=3))  # fmt: skip
    assert not met.response_breached and not met.restore_breached


@pytest.mark.parametrize(
    ("severity", "clocks", "detected"),
    [
        ("S9", CLOCKS, DETECTED),
        ("S1", {"S1": {"response_minutes": 15}}, DETECTED),
        ("S1", {"S1": {"response_minutes": -1, "restore_minutes": 5}}, DETECTED),
        ("S1", CLOCKS, datetime(2024, 5, 1, 12, 5)),
    ],
)
def test_bad_clocks_raise(severity: str, clocks: dict, detected: datetime) -> None:
    with pytest.raises(IncidentTermsError):
        incident_clocks(severity=severity, detected_at=detected, clocks=clocks)


def test_recovery_checklist_from_terms() -> None:
    items = recovery_checklist({
        "diagnostics": "dcgmi diag -r 3", "nccl_margin_pct": 5, "smoke_step_time_margin_pct": 10,
        "loss_continuity": True, "no_recurrence_hours": 24, "vendor_rma_note": "attach RMA id",
    })  # fmt: skip
    assert [(i.key, i.evidence, i.threshold) for i in items] == [
        ("diagnostics", "dcgmi-diag", None),
        ("nccl_margin_pct", "nccl-tests", 5.0),
        ("smoke_step_time_margin_pct", "step-times", 10.0),
        ("loss_continuity", None, None),
        ("no_recurrence_hours", None, 24.0),
        ("vendor_rma_note", None, None),
    ]
    assert "within 5% of the hand-over baseline" in items[1].text
    with pytest.raises(IncidentTermsError):
        recovery_checklist({"nccl_margin_pct": "lots"})


def test_lost_gpu_hours_per_phase() -> None:
    t = DETECTED
    lost = lost_gpu_hours(
        gpus=512, last_checkpoint=t - timedelta(minutes=30), failed_at=t,
        detected_at=t + timedelta(minutes=6), repaired_at=t + timedelta(hours=1),
        revalidated_at=t + timedelta(hours=1, minutes=30), restarted_at=t + timedelta(hours=2),
    )  # fmt: skip
    assert lost["work_since_checkpoint"] == 256.0 and lost["detection"] == 51.2
    assert lost["total"] == 512 * 2.5
    with pytest.raises(IncidentTermsError, match=r"failure \(.*\) comes before last checkpoint"):
        lost_gpu_hours(gpus=8, last_checkpoint=t, failed_at=t - timedelta(1), detected_at=t,
                       repaired_at=t, revalidated_at=t, restarted_at=t)  # fmt: skip


def test_a_missing_checkpoint_time_is_estimated_from_the_listing_else_the_interval() -> None:
    from engine.failures import estimate_checkpoint
    from engine.failures.incident import partial_gpu_hours

    failed = DETECTED
    listed = estimate_checkpoint(failed_at=failed, rewind_steps=900, checkpoint_step=3000,
                                 step_seconds=2.0, interval_minutes=60)  # fmt: skip
    assert listed is not None and listed.source == "listing"
    assert listed.at == failed - timedelta(minutes=30)  # 900 steps × 2 s = 30 min
    halved = estimate_checkpoint(failed_at=failed, rewind_steps=None, interval_minutes=60)
    assert halved is not None and halved.source == "interval"
    assert halved.at == failed - timedelta(minutes=30)
    assert "half of every 60 min" in halved.text
    assert estimate_checkpoint(failed_at=failed) is None
    # Seed 002's S3 with a restart on fewer nodes: 16 nodes × 8 GPUs, a 60-min interval (30 min
    # expected rollback), stopped 20 min before the restart on 15 nodes, restored 4 h after the
    # failure: 128 × 0.5 + 128 × 0.333 + 8 × 3.667 = 64 + 42.667 + 29.333 = 136.0 GPU-h.
    s3 = partial_gpu_hours(
        nodes_out=1, gpus_per_node=8, out_at=failed, restored_at=failed + timedelta(hours=4),
        all_gpus=128, fewer_nodes_at=failed + timedelta(minutes=20), last_checkpoint=halved.at,
    )  # fmt: skip
    assert s3["parts"] == {"rollback": 64.0, "stopped": 42.667, "reduced": 29.333}
    assert s3["gpu_hours"] == 136.0 and s3["needs"] == []
