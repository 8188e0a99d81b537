"""Files no row points to: media left by a worker killed between storing the bytes and
committing the row, and temporary uploads left by a request whose worker died.

`find_orphans` compares every file in default storage (the local media folder, or the S3 bucket
with FILE_STORAGE=s3) with every FileField value of every model; a file younger than
`older_than` is never reported, because its row's transaction may still be open.
`manage.py find_orphans` lists them, and with `--delete` removes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.files.storage import Storage, default_storage
from django.db import models
from django.utils import timezone


@dataclass(frozen=True)
class Orphan:
    name: str  # the storage name, with forward slashes
    size: int
    modified: datetime


def referenced_media() -> set[str]:
    """Every file name a FileField of any row holds."""
    names: set[str] = set()
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if isinstance(field, models.FileField):
                rows = model._base_manager.exclude(**{field.attname: ""}).exclude(
                    **{f"{field.attname}__isnull": True}
                )
                names.update(rows.values_list(field.attname, flat=True).iterator())
    return names


def stored_names(storage: Storage | None = None, folder: str = "") -> Iterator[str]:
    """Every file name in the storage, walking its folders (S3 prefixes alike)."""
    storage = storage or default_storage
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:  # a local media folder not made yet
        return
    prefix = f"{folder}/" if folder else ""
    for name in files:
        yield f"{prefix}{name}"
    for sub in folders:
        yield from stored_names(storage, f"{prefix}{sub}")


def find_orphans(*, older_than: timedelta, now: datetime | None = None) -> list[Orphan]:
    """Stored files no row points to, older than `older_than`, by name."""
    cutoff = (now or timezone.now()) - older_than
    referenced = referenced_media()
    found = []
    for name in stored_names():
        if name in referenced:
            continue
        modified = default_storage.get_modified_time(name)
        if modified < cutoff:
            found.append(Orphan(name=name, size=default_storage.size(name), modified=modified))
    return sorted(found, key=lambda o: o.name)


def delete_orphans(orphans: list[Orphan]) -> int:
    """Delete the listed files (each checked again: a row may point to it by now)."""
    referenced = referenced_media()
    deleted = 0
    for orphan in orphans:
        if orphan.name in referenced:
            continue
        default_storage.delete(orphan.name)
        deleted += 1
    return deleted


def sweep_temporary_uploads(now: datetime | None = None) -> int:
    """Delete temporary uploads older than UPLOAD_TEMP_MAX_MINUTES (their request is over: a
    live one would have finished or been killed by then). How many were deleted."""
    folder = Path(settings.FILE_UPLOAD_TEMP_DIR)
    if not folder.is_dir():
        return 0
    cutoff = (now or timezone.now()) - timedelta(minutes=settings.UPLOAD_TEMP_MAX_MINUTES)
    deleted = 0
    for entry in folder.iterdir():
        if entry.is_symlink() or not entry.is_file():
            continue
        if datetime.fromtimestamp(entry.stat().st_mtime, tz=cutoff.tzinfo) < cutoff:
            entry.unlink(missing_ok=True)
            deleted += 1
    return deleted
