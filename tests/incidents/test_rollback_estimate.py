"""Lost time when no checkpoint time is recorded: the rollback is estimated from the failed
run's checkpoint listing (steps since the newest complete checkpoint × the hand-over step
time), else from half the buyer's declared checkpoint interval; the page says which."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.urls import reverse

from bids.models import CapacityRequest
from incidents import services
from incidents.models import IncidentEvidenceKind
from incidents.selectors import lost_time
from tests.incidents.helpers import recovery_file

pytestmark = pytest.mark.django_db
OPENED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LISTING = {
    "files": [
        {"path": "global_step1200/mp_rank_00_model_states.pt", "size": 100},
        {"path": "global_step1200/zero_pp_rank_0_mp_rank_00_optim_states.pt", "size": 100},
        {"path": "latest", "content": "global_step1200"},
    ]
}


@pytest.fixture
def incident(analysed, buyer) -> Any:
    found = services.incident_open(failed_run=analysed, user=buyer.user, now=OPENED)
    # 16 GPUs; failed 30 min before opening; restored 2 h, revalidated 3 h, restarted 3.5 h after.
    services.incident_set_times(
        incident=found, user=None, gpus=16, failed_at=OPENED - timedelta(minutes=30)
    )
    found.restored_at = OPENED + timedelta(hours=2)
    found.revalidated_at = OPENED + timedelta(hours=3)
    found.restarted_at = OPENED + timedelta(hours=3, minutes=30)
    found.save()
    return found


def _interval(incident: Any, minutes: int | None) -> None:
    CapacityRequest.objects.filter(pk=incident.reservation.request_id).update(
        checkpoint_interval_minutes=minutes
    )
    incident.reservation.request.refresh_from_db()


def test_half_the_buyers_interval_when_nothing_else_says(incident, buyer) -> None:
    _interval(incident, 60)
    lost = lost_time(incident)
    # Checkpoint taken as 30 min (half of 60) before the failure at 11:30: 0.5 h × 16 = 8.0.
    # Detection 11:30→12:00 8.0; repair 2 h 32.0; revalidation 1 h 16.0; restart 0.5 h 8.0.
    assert [r["gpu_hours"] for r in lost["rows"]] == [8.0, 8.0, 32.0, 16.0, 8.0]
    assert lost["total"] == 72.0
    assert "half of every 60 min = 30 min before the failure" in lost["checkpoint_source"]
    page = buyer.client().get(reverse("incidents:incident-detail", args=[incident.pk]))
    html = page.content.decode()
    assert "estimated from the buyer&#x27;s checkpoint interval" in html
    assert "72.0 GPU-h" in html


def test_the_checkpoint_listing_wins_over_the_interval(incident, provider) -> None:
    _interval(incident, 60)
    incident.window = {**(incident.window or {}), "first_bad_step": 1800}
    incident.save(update_fields=["window"])
    row = services.incident_evidence_upload(
        incident=incident, user=provider.user, kind=IncidentEvidenceKind.CHECKPOINTS,
        upload=recovery_file("ckpt.json", json.dumps(LISTING).encode()),
    )  # fmt: skip
    assert row.ok, row.error
    incident.refresh_from_db()
    lost = lost_time(incident)
    # 600 steps (1800 − 1200) × 1.001 s (the hand-over step time) = 600.6 s = 0.16683 h × 16.
    assert lost["rows"][0]["gpu_hours"] == 2.669
    assert lost["total"] == 66.669
    assert (
        "600 steps since checkpoint step 1200 × 1.001 s a step = 10.0 min"
        in (lost["checkpoint_source"])
    )


def test_a_recorded_checkpoint_time_is_used_as_given(incident) -> None:
    _interval(incident, 60)
    services.incident_set_times(
        incident=incident, user=None, last_checkpoint_at=OPENED - timedelta(hours=2)
    )
    lost = lost_time(incident)
    assert lost["rows"][0]["gpu_hours"] == 24.0  # 10:00 → 11:30, 1.5 h × 16
    assert lost["checkpoint_source"] == ""


def test_without_listing_or_interval_the_checkpoint_is_still_asked_for(incident) -> None:
    _interval(incident, None)
    assert "last checkpoint" in lost_time(incident)["missing"]


def test_the_statement_says_the_checkpoint_was_estimated(buyer, provider, settings, tmp_path):
    """The worked example's January S1 (docs/availability.md) without its checkpoint time, the
    buyer's interval 60 min: the checkpoint is taken as 07:30, 30 min before the 08:00 failure,
    which is what was recorded there, so January still loses 240 GPU-h; the statement says so."""
    from incidents.models import Incident
    from tests.annexes.test_statement import _generate, _text
    from tests.delivery.test_worked_example import build

    settings.MEDIA_ROOT = tmp_path / "media"
    reservation = build(buyer, provider)
    s1 = Incident.objects.get(reservation=reservation, severity="S1")
    services.incident_set_times(incident=s1, user=None, last_checkpoint_at=None)
    _interval(s1, 60)
    annex = _generate(reservation, buyer.user, "2026-01").annex
    assert annex is not None
    text = " ".join(_text(annex).split())
    assert f"Incident #{s1.pk}: last checkpoint" in text
    assert "half of every 60 min = 30 min before the failure (2026-01-10 07:30 UTC)" in text
    assert "240.00 (incident" in text  # the lost GPU-hours' working, as with the recorded time
