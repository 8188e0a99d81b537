"""The analysis task: specific reasons for unreadable bundles, idempotent, crashes visible."""

from __future__ import annotations

import io
import os
import pickle
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from engine import failures
from incidents import services
from incidents.models import FailedRun, FailedRunState
from incidents.tasks import analyse_failed_run
from tests.incidents.helpers import scenario_upload

pytestmark = pytest.mark.django_db


def _upload(accepted, user, capture, *files):
    with capture(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation, user=user, uploads=list(files)
        )
    run.refresh_from_db()
    return run


def test_a_corrupt_archive_is_unreadable_with_the_reason(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    bad = SimpleUploadedFile("run.tar.gz", b"\x1f\x8b\x08garbage-not-gzip")
    run = _upload(accepted, provider.user, django_capture_on_commit_callbacks, bad)
    assert run.state == FailedRunState.UNREADABLE
    assert "run.tar.gz" in run.error and "corrupt" in run.error
    assert run.files.get().size == len(b"\x1f\x8b\x08garbage-not-gzip")  # the bytes stay


def test_a_second_run_of_the_task_changes_nothing(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    run = _upload(accepted, provider.user, django_capture_on_commit_callbacks, scenario_upload())
    before = (run.analysis, run.attempts, run.analysed_at)
    assert analyse_failed_run(run.pk) == FailedRunState.ANALYSED
    run.refresh_from_db()
    assert (run.analysis, run.attempts, run.analysed_at) == before
    assert analyse_failed_run(10**9) == "gone"


def test_a_crash_is_shown_and_can_be_retried(
    accepted, provider, buyer, monkeypatch, settings, django_capture_on_commit_callbacks
) -> None:
    settings.ANALYSIS_ISOLATED = False  # the crash is made in this process

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(failures, "analyse", boom)
    # Eager Celery records the re-raised error on its result; the row says what happened.
    _upload(accepted, provider.user, django_capture_on_commit_callbacks, scenario_upload())
    run = FailedRun.objects.get()
    assert run.state == FailedRunState.ERROR and "disk on fire" in run.error
    page = buyer.client().get(reverse("incidents:failed-run-detail", args=[run.pk]))
    assert b"Retry" in page.content and b"disk on fire" in page.content
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        buyer.client().post(reverse("incidents:failed-run-retry", args=[run.pk]))
    run.refresh_from_db()
    assert run.state == FailedRunState.ANALYSED and run.analysis["initiating_rank"] == 137


def _evil_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in ("../../etc/cron.d/evil", "/abs/path.log"):
            info = tarfile.TarInfo(name)
            info.size = 4
            tar.addfile(info, io.BytesIO(b"boom"))
        link = tarfile.TarInfo("logs/link.log")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    return buffer.getvalue()


def test_an_unsafe_archive_through_the_web_is_refused_never_a_500(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    url = reverse("incidents:failed-run-upload", args=[accepted.reservation.pk])
    client = provider.client()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"bundle": SimpleUploadedFile("evil.tar.gz", _evil_tar())})
    assert response.status_code == 302
    run = FailedRun.objects.get()
    assert run.state == FailedRunState.UNREADABLE, run.analysis
    assert "no readable files" in run.error
    page = client.get(response["Location"])
    assert page.status_code == 200 and b"could not be read" in page.content


def test_refused_members_are_listed_next_to_a_good_analysis(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    evil = SimpleUploadedFile("evil.tar.gz", _evil_tar())
    run = _upload(
        accepted, provider.user, django_capture_on_commit_callbacks, scenario_upload(), evil
    )
    assert run.state == FailedRunState.ANALYSED
    refused = {r["name"] for r in run.analysis["refused"]}
    assert {"../../etc/cron.d/evil", "logs/link.log"} <= refused
    page = provider.client().get(reverse("incidents:failed-run-detail", args=[run.pk]))
    assert b"Refused archive members" in page.content and b"rank 137" in page.content


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_a_malicious_pickle_dump_is_refused(
    accepted, provider, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    payload = pickle.dumps({"entries": [_Boom()]}, protocol=2)
    ran: list[object] = []
    monkeypatch.setattr(os, "system", lambda *a: ran.append(a))
    dump = SimpleUploadedFile("nccl_trace_rank_3", payload)
    run = _upload(
        accepted, provider.user, django_capture_on_commit_callbacks, scenario_upload(), dump
    )
    assert run.state == FailedRunState.ANALYSED and not ran
    assert any("system" in m for m in run.analysis["missing"]), run.analysis["missing"]


def _refused_only_tar() -> bytes:
    buffer = io.BytesIO()
    evil = pickle.dumps({"entries": [_Boom()]}, protocol=2)
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in [("../../etc/cron.d/evil", b"boom"), ("fr/nccl_trace_rank_0", evil)]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_bundle_of_only_refused_members_names_each_on_the_page_and_in_the_api(
    accepted, provider, django_capture_on_commit_callbacks
) -> None:
    """GIVEN an archive whose members are a path traversal and a malicious pickle
    THEN the page and the API error name both members and why, in one line."""
    from api.services import token_create

    url = reverse("incidents:failed-run-upload", args=[accepted.reservation.pk])
    client = provider.client()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {"bundle": SimpleUploadedFile("evil.tar.gz", _refused_only_tar())}
        )
    run = FailedRun.objects.get()
    assert run.state == FailedRunState.UNREADABLE and "\n" not in run.error
    assert run.error.startswith("no readable files in the upload; every file was refused: ")
    assert "../../etc/cron.d/evil (path traversal (..))" in run.error
    assert "fr/nccl_trace_rank_0 (Flight Recorder dump refused: pickle references " in run.error
    page = client.get(response["Location"]).content.decode()
    assert "../../etc/cron.d/evil (path traversal (..))" in page
    assert "fr/nccl_trace_rank_0 (Flight Recorder dump refused" in page
    token = token_create(user=provider.user, name="cluster")[1]
    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    body = api.get(reverse("api:failed-run-detail", args=[run.pk])).json()
    assert body["state"] == "unreadable" and body["error"] == run.error
