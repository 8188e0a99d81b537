"""`/api/v1/organization/export/`: an administrator asks, polls and downloads; a plain member is
told why not; another organisation's export is a 404, its file included."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from audit.models import AuditEntry
from core.jobs import reap_stuck_jobs
from ops.models import ExportJob, ExportStatus
from tests.api.v1.conftest import token_client
from tests.ops.export_helpers import read_archive

pytestmark = pytest.mark.django_db
URL = "/api/v1/organization/export/"


def test_an_administrator_exports_polls_and_downloads(
    world: Any, provider: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = token_client(provider.user)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL)
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "queued" and job["url"] == f"{URL}{job['id']}/"
    polled = client.get(job["url"]).json()
    assert polled["status"] == "done", polled["error"]
    assert polled["download_url"] == f"{URL}{job['id']}/file/"
    download = client.get(polled["download_url"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    archive = read_archive(b"".join(download.streaming_content))
    assert {row["id"] for row in archive.json("bids.json")} == {world.bid.pk}
    assert [row["id"] for row in client.get(URL).json()] == [job["id"]]
    assert AuditEntry.objects.filter(action="org.export", org_id=provider.org.pk).count() == 1


def test_a_plain_member_is_refused_by_name_and_nothing_is_queued(buyer_requester: Any) -> None:
    response = token_client(buyer_requester.user).post(URL)
    assert response.status_code == 403
    assert response.json()["detail"] == "Only an administrator of Helix Labs can export its data."
    assert not ExportJob.objects.exists()


def test_another_organisations_export_is_a_404_everywhere(
    buyer: Any, outsider: Any, rival_provider: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        job_id = token_client(buyer.user).post(URL).json()["id"]
    for role in (outsider, rival_provider):
        client = token_client(role.user)
        for path in (f"{URL}{job_id}/", f"{URL}{job_id}/file/"):
            assert client.get(path).status_code == 404, (role.user, path)
        assert client.post(f"{URL}{job_id}/retry/").status_code == 404
        assert client.get(URL).json() == []
    assert token_client(buyer.user).get(f"{URL}{job_id}/file/").status_code == 200


def test_a_failed_export_shows_its_error_and_is_built_again_on_retry(
    buyer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    job = ExportJob.objects.create(
        organization=buyer.org,
        created_by=buyer.user,
        status=ExportStatus.FAILED,
        error="The worker was lost.",
    )
    client = token_client(buyer.user)
    assert client.get(f"{URL}{job.pk}/").json()["error"] == "The worker was lost."
    assert client.get(f"{URL}{job.pk}/file/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{URL}{job.pk}/retry/")
    assert response.status_code == 202
    assert client.get(f"{URL}{job.pk}/").json()["status"] == "done"
    again = client.post(f"{URL}{job.pk}/retry/")
    assert again.status_code == 409  # the job's state, not the input
    assert again.json()["detail"] == "Only a failed export can be retried."


def test_an_export_stuck_running_is_failed_by_the_reaper_and_offered_again(
    buyer: Any, settings: Any
) -> None:
    job = ExportJob.objects.create(
        organization=buyer.org,
        status=ExportStatus.RUNNING,
        started_at=timezone.now() - timedelta(seconds=settings.JOB_TIME_LIMIT_SECONDS + 120),
    )
    assert reap_stuck_jobs()["organisation exports"] == 1
    polled = token_client(buyer.user).get(f"{URL}{job.pk}/").json()
    assert polled["status"] == "failed"
    assert polled["error"].startswith("The job stopped without finishing")
    page = buyer.client().get("/org/export/").content.decode()
    assert f'action="/org/export/{job.pk}/retry/"' in page
