"""The heavy queue is fair: one analysis per organisation in flight, the rest wait (shown as
waiting) and start one by one as the earlier ones end; another organisation never waits behind
them."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from api.services import token_create
from incidents.models import FailedRun
from incidents.tasks import analyse_failed_run
from tests.incidents.helpers import scenario_upload

pytestmark = pytest.mark.django_db


def _client(user: Any) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {token_create(user=user, name='cluster')[1]}")


def _upload(client: Client, reservation: Any) -> dict[str, Any]:
    response = client.post(
        reverse("api:reservation-failed-runs", args=[reservation.pk]), {"file": scenario_upload()}
    )
    assert response.status_code == 201, response.content
    return response.json()


def _state(client: Client, run_id: int) -> str:
    return client.get(reverse("api:failed-run-detail", args=[run_id])).json()["state"]


def test_one_analysis_per_organisation_runs_the_rest_wait(accepted, provider, buyer, settings):
    settings.HEAVY_JOBS_PER_ORG = 4
    curl = _client(provider.user)
    # Nothing commits in this test, so nothing runs until the test runs it.
    first, second, third = (_upload(curl, accepted.reservation) for _ in range(3))
    assert [first["state"], second["state"], third["state"]] == ["queued", "waiting", "waiting"]

    # The buyer's organisation has its own turn: it does not wait behind the provider's batch.
    assert _upload(_client(buyer.user), accepted.reservation)["state"] == "queued"

    # The provider's page says why it waits.
    browser = Client()
    browser.force_login(provider.user)
    page = browser.get(reverse("incidents:failed-run-detail", args=[second["id"]])).content.decode()
    assert "The analysis is waiting: each organisation has one analysis running at a time" in page

    # When the first ends, the oldest waiting one is queued; the third still waits.
    assert analyse_failed_run(first["id"]) == "analysed"
    assert _state(curl, second["id"]) == "queued"
    assert _state(curl, third["id"]) == "waiting"
    assert analyse_failed_run(second["id"]) == "analysed"
    assert _state(curl, third["id"]) == "queued"


def test_past_the_stored_limit_the_next_upload_is_refused(accepted, provider, settings):
    settings.HEAVY_JOBS_PER_ORG = 2
    curl = _client(provider.user)
    _upload(curl, accepted.reservation)
    _upload(curl, accepted.reservation)
    refused = curl.post(
        reverse("api:reservation-failed-runs", args=[accepted.reservation.pk]),
        {"file": scenario_upload()},
    )
    assert refused.status_code == 429
    assert (
        "already has 2 failed-run analyses waiting, queued or running" in (refused.json()["detail"])
    )
    assert FailedRun.objects.count() == 2


def test_a_waiting_analysis_starts_when_the_reaper_frees_its_turn(accepted, provider):
    from datetime import timedelta

    from django.utils import timezone

    from core.jobs import reap_stuck_jobs

    curl = _client(provider.user)
    first, second = (_upload(curl, accepted.reservation) for _ in range(2))
    # The first's worker was lost long ago: the reaper fails it, and the second is queued.
    FailedRun.objects.filter(pk=first["id"]).update(
        state="analysing", analysis_started_at=timezone.now() - timedelta(days=1)
    )
    reaped = reap_stuck_jobs()
    assert reaped["failed-run analyses"] == 1 and reaped["failed-run analyses, waiting"] == 1
    assert _state(curl, first["id"]) == "error"
    assert _state(curl, second["id"]) == "queued"


def test_the_upload_page_says_the_analysis_waits(accepted, provider):
    _upload(_client(provider.user), accepted.reservation)
    browser = Client()
    browser.force_login(provider.user)
    page = browser.post(
        reverse("incidents:failed-run-upload", args=[accepted.reservation.pk]),
        {"bundle": scenario_upload(), "label": "Job 2"},
        follow=True,
    ).content.decode()
    assert "Stored Job 2; it waits for your organisation" in unescape(page)
    assert FailedRun.objects.get(label="Job 2").state == "waiting"
