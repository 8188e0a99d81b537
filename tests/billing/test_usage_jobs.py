"""Reconciliations end: a run past its limit or never delivered is failed by the reaper with a
reason and Retry; a run whose worker died is failed, not run again by itself and not left
"reconciling" (with a real `celery worker` whose child is killed mid-run)."""

from __future__ import annotations

import os
import signal
from datetime import timedelta

import pytest
from django.utils import timezone

from billing import services
from billing.models import UsageState, UsageUpload
from core.jobs import reap_stuck_jobs
from tests.billing.conftest import CLOCK, contracted, media_root, upload_and_map, usage_file
from tests.worker_fixtures import children, wait_for, worker_process

__all__ = ["contracted", "media_root", "worker_process"]


def _planted(contracted, provider, capture):
    return upload_and_map(
        contracted.reservation, provider.user, usage_file("usage_planted.csv"), capture
    )


@pytest.mark.django_db
def test_the_reaper_fails_a_run_past_its_limit_and_one_never_delivered(
    contracted, provider, django_capture_on_commit_callbacks, settings
):
    done = _planted(contracted, provider, django_capture_on_commit_callbacks)
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_TIME_LIMIT_SECONDS + 3600 * 3)
    stuck = UsageUpload.objects.filter(pk=done.pk)
    stuck.update(state=UsageState.RUNNING, started_at=long_ago)
    fresh = _planted(contracted, provider, django_capture_on_commit_callbacks)
    UsageUpload.objects.filter(pk=fresh.pk).update(
        state=UsageState.RUNNING, started_at=timezone.now()
    )
    lost = _planted(contracted, provider, django_capture_on_commit_callbacks)
    UsageUpload.objects.filter(pk=lost.pk).update(state=UsageState.QUEUED, queued_at=long_ago)

    failed = reap_stuck_jobs()
    assert failed["usage reconciliations"] == 2
    assert "Retry it" in UsageUpload.objects.get(pk=done.pk).error
    assert "No worker picked the job up" in UsageUpload.objects.get(pk=lost.pk).error
    assert UsageUpload.objects.get(pk=fresh.pk).state == UsageState.RUNNING  # still in time


@pytest.mark.django_db
def test_a_run_delivered_again_after_its_worker_died_is_failed_not_rerun(
    contracted, provider, django_capture_on_commit_callbacks
):
    row = _planted(contracted, provider, django_capture_on_commit_callbacks)
    UsageUpload.objects.filter(pk=row.pk).update(state=UsageState.RUNNING)
    again = services.usage_reconcile(upload_id=row.pk)
    assert again.state == UsageState.ERROR and again.error == services.LOST_WORKER


def _a_long_bill() -> bytes:
    """Per-minute lines for both nodes over three months: long enough to be killed mid-run."""
    lines = ["usage_start,usage_end,instance_id,gpu_count,hours,rate_usd,amount_usd,line_type"]
    for minute in range(0, 91 * 1440):
        start = CLOCK + timedelta(minutes=minute)
        end = start + timedelta(minutes=1)
        a, b = start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")
        for node in ("gpu-b01", "gpu-b02"):
            lines.append(f"{a},{b},{node},8,0.0166667,2.50,0.33,gpu")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_reconciliation_whose_worker_is_killed_ends_failed_and_retry_runs_it(
    contracted, provider, django_capture_on_commit_callbacks, worker_process, tmp_path
):
    first = _planted(contracted, provider, django_capture_on_commit_callbacks)  # saves a mapping

    def first_done() -> bool:
        first.refresh_from_db()
        return first.state == UsageState.DONE

    assert wait_for(first_done, seconds=60), (tmp_path / "worker.log").read_text()[-3000:]
    row = services.usage_upload(
        reservation=contracted.reservation,
        user=provider.user,
        upload=usage_file("year.csv", _a_long_bill()),
    )

    def state() -> str:
        row.refresh_from_db()
        return row.state

    assert wait_for(lambda: state() in ("running", "done", "error"), seconds=60), "never started"
    assert row.state == UsageState.RUNNING, "finished before it could be killed"
    (child,) = children(worker_process.pid)
    os.kill(child, signal.SIGKILL)
    log = tmp_path / "worker.log"
    assert wait_for(lambda: state() == "error", seconds=90), log.read_text()[-3000:]
    assert row.error == services.LOST_WORKER

    services.usage_retry(upload=row, user=provider.user)
    assert wait_for(lambda: state() == "done", seconds=120), log.read_text()[-3000:]
    assert row.lines == 91 * 1440 * 2 and row.attempts == 2


@pytest.mark.django_db(transaction=True)  # commits for real: the queueing runs in the request
def test_a_page_upload_while_the_broker_is_away_says_so_and_keeps_the_file(
    contracted, provider, django_capture_on_commit_callbacks, broker_away
):
    from django.urls import reverse

    client = provider.client()
    url = reverse("billing:usage-list", args=[contracted.reservation.pk])
    first = client.post(url, {"file": usage_file("usage_planted.csv")})
    assert first.status_code == 302  # waits for its mapping: nothing to queue yet
    row = UsageUpload.objects.get()
    mapping_url = reverse("billing:usage-mapping", args=[row.pk])
    from tests.billing.test_usage_pages import MAPPING

    response = client.post(mapping_url, MAPPING)
    assert response.status_code == 503 and response["Retry-After"]
    page = response.content.decode()
    assert "Stored, but not started yet" in page and "could not be reached" in page
    row.refresh_from_db()
    assert row.state == UsageState.QUEUED
    detail = client.get(reverse("billing:usage-detail", args=[row.pk])).content.decode()
    assert 'id="usage-retry"' in detail  # queued: it can be sent again


@pytest.mark.django_db
def test_a_usage_file_may_be_larger_than_evidence_up_to_the_usage_limit(
    contracted, provider, settings
):
    """A year of hourly lines is about 70 MB: over the 50 MiB evidence limit, under the usage
    limit. The body-limit middleware judges a usage upload by the usage limit."""
    from tests.api.v1.conftest import token_client

    seventy_mb, too_big = 70 * 1024**2, settings.USAGE_MAX_BYTES + 2 * 1024**2
    url = f"/api/v1/reservations/{contracted.reservation.pk}/usage/"
    client = token_client(provider.user)
    over = client.post(url, {"file": usage_file("u.csv", b"a,b\n")}, format="multipart",
                       CONTENT_LENGTH=too_big)  # fmt: skip
    assert over.status_code == 413 and "Nothing was read or stored" in over.json()["detail"]
    from core.middleware import body_limit

    # The page and the API take a year's file; an evidence route would refuse it.
    assert body_limit("billing:usage-list") > seventy_mb
    assert body_limit("api:reservation-usage") > seventy_mb
    assert body_limit("api:run-evidence") < seventy_mb
