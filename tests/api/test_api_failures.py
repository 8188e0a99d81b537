"""Failed-run bundles by API: a provider token uploads an archive, reads the analysis back."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from api.services import token_create
from incidents.models import FailedRun
from tests.incidents.helpers import accepted, scenario_upload

__all__ = ["accepted"]
pytestmark = pytest.mark.django_db


def token_client(user: Any) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {token_create(user=user, name='cluster')[1]}")


def _url(reservation: Any) -> str:
    return reverse("api:reservation-failed-runs", args=[reservation.pk])


def test_a_token_uploads_a_bundle_and_reads_the_initiating_rank(
    accepted, provider, buyer, django_capture_on_commit_callbacks
):
    curl = token_client(provider.user)
    with django_capture_on_commit_callbacks(execute=True):
        response = curl.post(
            _url(accepted.reservation),
            {"file": scenario_upload(), "label": "Job 4711", "world_size": "256"},
            HTTP_IDEMPOTENCY_KEY="job-4711",
        )
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["label"] == "Job 4711" and created["world_size"] == 256
    assert [f["original_name"] for f in created["files"]] == ["run.tar.gz"]

    detail = curl.get(reverse("api:failed-run-detail", args=[created["id"]])).json()
    assert detail["state"] == "analysed"
    assert detail["analysis"]["first_failure"]["rank"] == 137
    assert detail["analysis"]["suggested_owner"] == "provider"
    # The buyer sees it in its list, filtered by reservation.
    listing = token_client(buyer.user).get(
        reverse("api:failed-run-list"), {"reservation": accepted.reservation.pk}
    )
    assert [r["id"] for r in listing.json()["results"]] == [created["id"]]

    # A retried curl with the same key creates nothing.
    again = curl.post(
        _url(accepted.reservation),
        {"file": scenario_upload(), "label": "Job 4711", "world_size": "256"},
        HTTP_IDEMPOTENCY_KEY="job-4711",
    )
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == created["id"]
    assert FailedRun.objects.count() == 1
    # The same key with another file is refused.
    other = curl.post(
        _url(accepted.reservation),
        {"file": scenario_upload(culprit=3)},
        HTTP_IDEMPOTENCY_KEY="job-4711",
    )
    assert other.status_code == 422 and set(other.json()) == {"detail", "errors"}


def test_bad_uploads_answer_the_error_shape(accepted, provider):
    curl = token_client(provider.user)
    missing = curl.post(_url(accepted.reservation), {"label": "x"})
    assert missing.status_code == 400
    assert set(missing.json()) == {"detail", "errors"} and "file" in missing.json()["errors"]
    empty = SimpleUploadedFile("rank7.log", b"")
    refused = curl.post(_url(accepted.reservation), {"file": [scenario_upload(), empty]})
    # Named after the multipart field the schema documents, not the browser form's `bundle`,
    # and naming the file among the many a curl sends.
    assert refused.status_code == 400
    assert refused.json()["errors"] == {
        "file": ["rank7.log: empty, and an empty file cannot be evidence. Nothing was stored."]
    }
    bad_size = curl.post(
        _url(accepted.reservation), {"file": scenario_upload(), "world_size": "lots"}
    )
    assert bad_size.status_code == 400 and "world_size" in bad_size.json()["errors"]
    huge = curl.post(
        _url(accepted.reservation), {"file": scenario_upload(), "world_size": "2147483647"}
    )
    assert huge.status_code == 400
    assert "131072" in huge.json()["errors"]["world_size"][0].replace(",", "")
    assert not FailedRun.objects.exists()


def test_a_bundle_the_analysis_cannot_read_ends_unreadable(
    accepted, provider, django_capture_on_commit_callbacks
):
    curl = token_client(provider.user)
    junk = SimpleUploadedFile("run.tar.gz", b"\x1f\x8b not really gzip")
    with django_capture_on_commit_callbacks(execute=True):
        created = curl.post(_url(accepted.reservation), {"file": junk}).json()
    detail = curl.get(reverse("api:failed-run-detail", args=[created["id"]])).json()
    assert detail["state"] == "unreadable" and detail["error"]
    assert detail["analysis"] is None


def test_one_organisation_cannot_fill_the_heavy_queue(accepted, provider, settings):
    settings.HEAVY_JOBS_PER_ORG = 2
    curl = token_client(provider.user)
    for _ in range(2):  # queued, not yet analysed (no commit runs the task in this test)
        assert curl.post(_url(accepted.reservation), {"file": scenario_upload()}).status_code == 201
    refused = curl.post(_url(accepted.reservation), {"file": scenario_upload()})
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert (
        "already has 2 failed-run analyses waiting, queued or running" in (refused.json()["detail"])
    )
    assert FailedRun.objects.count() == 2
