"""An analysis whose worker died (a memory bomb, a deploy) does not stay "analysing" with Retry
refused: past its limit the reaper fails it, and Retry queues it again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.jobs import reap_stuck_jobs
from incidents import services
from incidents.models import FailedRun, FailedRunState
from tests.incidents.helpers import accepted, media_root, scenario_upload

pytestmark = pytest.mark.django_db
__all__ = ["accepted", "media_root"]


def test_a_stuck_analysis_is_failed_then_retried(
    accepted, provider, settings, django_capture_on_commit_callbacks
):
    run = services.failed_run_upload(
        reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()]
    )
    started = timezone.now() - timedelta(seconds=settings.ANALYSIS_TIME_LIMIT_SECONDS + 120)
    FailedRun.objects.filter(pk=run.pk).update(
        state=FailedRunState.ANALYSING, analysis_started_at=started
    )
    with pytest.raises(Exception, match="Only a failed or unreadable analysis"):
        services.failed_run_retry(failed_run=FailedRun.objects.get(pk=run.pk), user=provider.user)
    assert reap_stuck_jobs()["failed-run analyses"] == 1
    run.refresh_from_db()
    assert run.state == FailedRunState.ERROR and "time limit" in run.error
    with django_capture_on_commit_callbacks(execute=True):
        services.failed_run_retry(failed_run=run, user=provider.user)
    run.refresh_from_db()
    assert run.state == FailedRunState.ANALYSED  # tasks run in-process here


def test_a_recent_analysis_is_left_alone(accepted, provider):
    run = services.failed_run_upload(
        reservation=accepted.reservation, user=provider.user, uploads=[scenario_upload()]
    )
    FailedRun.objects.filter(pk=run.pk).update(
        state=FailedRunState.ANALYSING, analysis_started_at=timezone.now()
    )
    assert reap_stuck_jobs()["failed-run analyses"] == 0
