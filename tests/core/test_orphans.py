"""Files no row points to are found and removed: `find_orphans` for media, and the reaper for
temporary uploads left by a request whose worker died."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from acceptance.models import Evidence
from core.jobs import reap_stuck_jobs
from core.orphans import find_orphans
from core.uploads import atomic_keeping_no_orphans
from tests.acceptance.burnin.helpers import awarded
from tests.incidents.helpers import accepted
from tests.stored import empty_storage, stored_file_names

pytestmark = pytest.mark.django_db

HOURS_AGO = time.time() - 3 * 3600


def _stray(root: Path, name: str, *, old: bool = True) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"left behind\n")
    if old:
        os.utime(path, (HOURS_AGO, HOURS_AGO))
    return path


def _run(*args: str) -> str:
    out = StringIO()
    call_command("find_orphans", *args, stdout=out)
    return out.getvalue()


def _stored(name: str) -> str:
    return default_storage.save(name, ContentFile(b"left behind\n"))


def _kept(awarded) -> Evidence:
    kept = Evidence(run=awarded.run)
    with atomic_keeping_no_orphans():
        kept.store(SimpleUploadedFile("kept.log", b"committed bytes\n"))
        kept.save()
    return kept


def test_only_files_no_row_points_to_and_old_enough_are_orphans(awarded, empty_storage):
    kept = _kept(awarded)
    lost = _stored("evidence/run-9/ab/lost.log")
    annex = _stored("annexes/3/annex.pdf")
    time.sleep(1.1)  # S3 keeps modification times to the second
    young = _stored("failed-runs/7/cd/rank0.log")  # its row may still be committing
    now = default_storage.get_modified_time(young)

    found = find_orphans(older_than=timedelta(0), now=now)

    assert [o.name for o in found] == sorted([annex, lost])
    assert kept.file.name not in {o.name for o in found}
    assert all(o.size == len(b"left behind\n") for o in found)


def test_find_orphans_lists_then_deletes_only_files_no_row_points_to(
    awarded, empty_storage, monkeypatch
):
    kept = _kept(awarded)
    lost = _stored("evidence/run-9/ab/lost.log")
    annex = _stored("annexes/3/annex.pdf")
    later = timezone.now() + timedelta(hours=3)  # every file is past the 60-minute default
    monkeypatch.setattr("core.orphans.timezone.now", lambda: later)

    listed = _run()
    assert lost in listed and annex in listed and kept.file.name not in listed
    assert "2 orphaned files" in listed and "run with --delete" in listed
    assert "lost.log" in stored_file_names()  # listing deletes nothing

    assert "2 orphaned files deleted" in _run("--delete")
    assert stored_file_names() == ["kept.log"]
    assert "0 orphaned files" in _run()


def test_a_bad_age_is_refused_in_words():
    with pytest.raises(CommandError, match="--older-than-minutes must be at least 1, got 0"):
        _run("--older-than-minutes", "0")


def test_the_reaper_deletes_temporary_uploads_of_dead_requests(settings, tmp_path):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "uploads")
    left = _stray(tmp_path / "uploads", "tmpab12.upload.tar.gz")
    live = _stray(tmp_path / "uploads", "tmpcd34.upload.log", old=False)
    assert reap_stuck_jobs()["temporary uploads"] == 1
    assert not left.exists() and live.exists()


def test_a_request_that_ends_in_an_error_leaves_no_temporary_upload(
    accepted, provider, settings, tmp_path
):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "uploads")
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # so the upload goes to a temporary file
    (tmp_path / "uploads").mkdir()
    client = Client()
    client.force_login(provider.user)
    # The files are read, then the world size is refused.
    response = client.post(
        reverse("api:reservation-failed-runs", args=[accepted.reservation.pk]),
        {"file": SimpleUploadedFile("run.log", b"x" * 200_000), "world_size": "0"},
    )
    assert response.status_code == 400 and "world_size" in response.json()["errors"]
    assert list((tmp_path / "uploads").iterdir()) == []


__all__ = ["accepted", "awarded", "empty_storage"]  # fixtures
