"""A render whose worker died stays "rendering" no longer than its time limit: the reaper fails
it with the reason, and asking for the annex again starts a fresh job instead of returning the
stuck one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from annexes.models import AnnexJob, AnnexJobStatus, AnnexKind
from annexes.services import annex_request
from core.jobs import reap_stuck_jobs

pytestmark = pytest.mark.django_db


def _stuck(job: AnnexJob, *, minutes: int) -> None:
    AnnexJob.objects.filter(pk=job.pk).update(
        status=AnnexJobStatus.RENDERING, started_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_a_render_past_its_limit_is_failed_with_the_reason(awarded, buyer, settings):
    job = annex_request(capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user)
    _stuck(job, minutes=settings.JOB_TIME_LIMIT_SECONDS // 60 - 2)
    assert reap_stuck_jobs()["annex renders"] == 0  # still within its limit
    _stuck(job, minutes=settings.JOB_TIME_LIMIT_SECONDS // 60 + 2)
    assert reap_stuck_jobs()["annex renders"] == 1
    job.refresh_from_db()
    assert job.status == AnnexJobStatus.FAILED
    assert "worker was lost or it ran past its time limit" in job.error and "Retry" in job.error


def test_asking_again_for_a_stuck_annex_starts_a_fresh_job(awarded, buyer, settings):
    stuck = annex_request(
        capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user
    )
    _stuck(stuck, minutes=settings.JOB_TIME_LIMIT_SECONDS // 60 + 5)
    fresh = annex_request(
        capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user
    )
    assert fresh.pk != stuck.pk
    stuck.refresh_from_db()
    assert stuck.status == AnnexJobStatus.FAILED


def test_the_command_says_what_it_failed(awarded, buyer, settings, capsys):
    job = annex_request(capacity_request=awarded.request, kind=AnnexKind.CONTRACT, user=buyer.user)
    _stuck(job, minutes=settings.JOB_TIME_LIMIT_SECONDS // 60 + 2)
    call_command("reap_stuck_jobs")
    out = capsys.readouterr().out
    assert "annex renders: 1 stuck job failed" in out
    assert "failed-run analyses: 0 stuck jobs failed" in out
