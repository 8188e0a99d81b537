"""Files no row points to: media left by a worker killed between storing the bytes and
committing the row, and temporary uploads left by a request whose worker died.

`find_orphans` compares every file under MEDIA_ROOT with every FileField value of every model;
a file younger than `older_than` is never reported, because its row's transaction may still be
open. `manage.py find_orphans` lists them, and with `--delete` removes them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import models
from django.utils import timezone


@dataclass(frozen=True)
class Orphan:
    name: str  # relative to MEDIA_ROOT, with forward slashes
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


def _files(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    for folder, _, files in os.walk(root, followlinks=False):
        for name in files:
            full = Path(folder) / name
            if full.is_symlink() or not full.is_file():
                continue
            yield full.relative_to(root).as_posix(), full.stat()


def find_orphans(*, older_than: timedelta, now: datetime | None = None) -> list[Orphan]:
    """Media files no row points to, older than `older_than`, by name."""
    root = Path(settings.MEDIA_ROOT)
    if not root.is_dir():
        return []
    cutoff = (now or timezone.now()) - older_than
    referenced = referenced_media()
    found = []
    for name, stat in _files(root):
        modified = datetime.fromtimestamp(stat.st_mtime, tz=timezone.get_current_timezone())
        if name not in referenced and modified < cutoff:
            found.append(Orphan(name=name, size=stat.st_size, modified=modified))
    return sorted(found, key=lambda o: o.name)


def delete_orphans(orphans: list[Orphan]) -> int:
    """Delete the listed files (each checked again: a row may point to it by now)."""
    root = Path(settings.MEDIA_ROOT)
    referenced = referenced_media()
    deleted = 0
    for orphan in orphans:
        if orphan.name in referenced:
            continue
        (root / orphan.name).unlink(missing_ok=True)
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
