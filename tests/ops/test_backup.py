"""The restore drill: seed the demo, back it up, restore it into a fresh database and a fresh
file store the way an operator would (`manage.py restore` in its own process), and show that
every row count, every file's SHA-256 and the audit chain come back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection

from ops.backup import MANIFEST, BackupError, backup_create, backup_restore, restore_check
from tests.stored import empty_storage

ROOT = Path(__file__).resolve().parents[2]
# A store holding only what each test puts there: a backup copies every stored file.
__all__ = ["empty_storage"]  # a fixture


def _fresh_database(tmp_path: Path) -> tuple[str, str | None]:
    """A DATABASE_URL for a new, empty database of the same kind, and its name to drop."""
    if connection.vendor == "sqlite":
        return f"sqlite:///{tmp_path / 'restored.sqlite3'}", None
    s = connection.settings_dict
    name = f"{s['NAME']}_restore"
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    url = f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{name}"
    return url, name


def _manage(*args: str, database_url: str, media: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "MEDIA_ROOT": str(media)}
    env.pop("CELERY_BROKER_URL", None)  # the restore queues nothing
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


@pytest.mark.django_db(transaction=True)
def test_a_backup_of_the_demo_restores_whole_into_a_fresh_database_and_store(
    tmp_path, empty_storage
):
    call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    default_storage.save("evidence/extra/notes.txt", ContentFile(b"kept byte for byte\n"))
    out = tmp_path / "backup"
    call_command("backup", str(out), stdout=open(os.devnull, "w"))  # noqa: SIM115
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["rows"]["audit_auditentry"] > 0 and manifest["rows"]["bids_bid"] > 0
    assert any(f["name"] == "evidence/extra/notes.txt" for f in manifest["files"])
    assert manifest["missing_files"] == []

    url, created = _fresh_database(tmp_path)
    media = tmp_path / "restored-media"
    try:
        migrate_first = _manage("restore", str(out), database_url=url, media=media)
        assert migrate_first.returncode == 0, migrate_first.stderr
        assert "every count and SHA-256 matches; audit chain intact" in migrate_first.stdout
        assert (media / "evidence/extra/notes.txt").read_bytes() == b"kept byte for byte\n"
        # A second restore over the first is refused: nothing is overwritten.
        again = _manage("restore", str(out), database_url=url, media=media)
        assert again.returncode == 1 and "not empty" in again.stderr
    finally:
        if created:
            connection.close()
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{created}" WITH (FORCE)')


@pytest.mark.django_db(transaction=True)
def test_a_tampered_file_is_named_by_the_check(tmp_path, empty_storage):
    name = default_storage.save("annexes/a.pdf", ContentFile(b"%PDF-1.7 original"))
    manifest = backup_create(out=tmp_path / "backup")
    assert restore_check(manifest=manifest, storage=default_storage).problems == []
    default_storage.delete(name)
    assert default_storage.save(name, ContentFile(b"%PDF-1.7 altered!")) == name
    report = restore_check(manifest=manifest, storage=default_storage)
    assert report.problems == [f"file {name}: its SHA-256 differs from the backup's"]


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_a_database_that_is_not_empty_and_a_folder_that_is_no_backup(
    tmp_path, empty_storage
):
    with pytest.raises(BackupError, match=r"holds no manifest\.json"):
        backup_restore(source=tmp_path)
    out = tmp_path / "backup"
    backup_create(out=out)
    with pytest.raises(BackupError, match="database is not empty"):
        backup_restore(source=out)
    with pytest.raises(BackupError, match="is not empty: a backup goes into a new folder"):
        backup_create(out=out)
