"""Backup and restore: the database and every stored file as one snapshot, and a restore that
proves nothing was lost.

A backup is a folder: `database.dump` (PostgreSQL's custom format, from `pg_dump`) or
`database.sqlite3`, `files/` (every file in the storage, under its stored name) and
`manifest.json` (each file's size and SHA-256, each table's row count, and the files a row
names that the storage did not have).

On PostgreSQL the dump, the row counts and the list of files rows point to are all read from
one exported snapshot (`pg_dump --snapshot`), so they agree even while people keep working.
Stored files are never rewritten under the same name, so copying them after the snapshot
loses nothing the snapshot refers to.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.files import File
from django.core.files.storage import Storage, default_storage
from django.db import connection, models, transaction
from django.utils import timezone

from audit.selectors import chain_verify

FORMAT = 1
MANIFEST = "manifest.json"
CHUNK = 1024 * 1024


class BackupError(Exception):
    """A backup or restore that cannot go on, in words an operator can act on."""


@dataclass
class RestoreReport:
    rows: dict[str, int]
    files: int
    audit_entries: int
    problems: list[str] = field(default_factory=list)


def backup_create(*, out: Path, storage: Storage = default_storage) -> dict[str, Any]:
    """Write a backup into `out` (a new or empty folder); returns the manifest."""
    if out.exists() and any(out.iterdir()):
        raise BackupError(f"{out} is not empty: a backup goes into a new folder")
    out.mkdir(parents=True, exist_ok=True)
    vendor = connection.vendor
    if vendor == "postgresql" and connection.in_atomic_block:
        raise BackupError("a backup reads its own snapshot: run it outside a transaction")
    with transaction.atomic():
        if vendor == "postgresql":
            database = _pg_dump_in_snapshot(out)
        elif vendor == "sqlite":
            database = _sqlite_copy(out)
        else:
            raise BackupError(f"backups support PostgreSQL and SQLite, not {vendor}")
        rows = row_counts()
        referenced = referenced_files()
    files = _copy_files(storage, out / "files")
    manifest = {
        "format": FORMAT,
        "created_at": timezone.now().isoformat(),
        "database": {"vendor": vendor, "file": database, "sha256": _sha256_path(out / database)},
        "rows": rows,
        "files": files,
        "missing_files": sorted(referenced - {f["name"] for f in files}),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return manifest


def backup_restore(*, source: Path, storage: Storage = default_storage) -> RestoreReport:
    """Restore `source` into this (empty) database and (empty) storage, then check it."""
    manifest = _read_manifest(source)
    if connection.introspection.table_names():
        raise BackupError("the database is not empty: restore into a new, empty database")
    if next(_walk(storage, ""), None) is not None:
        raise BackupError("the file storage is not empty: restore into an empty one")
    vendor = manifest["database"]["vendor"]
    if vendor != connection.vendor:
        raise BackupError(f"this backup is of {vendor}; the database here is {connection.vendor}")
    database = source / manifest["database"]["file"]
    if _sha256_path(database) != manifest["database"]["sha256"]:
        raise BackupError(f"{database.name} does not match its checksum in the manifest")
    if vendor == "postgresql":
        _pg_restore(database)
    else:
        _sqlite_restore(database)
    for entry in manifest["files"]:
        with (source / "files" / entry["name"]).open("rb") as fh:
            saved = storage.save(entry["name"], File(fh))
        if saved != entry["name"]:
            raise BackupError(f"the storage renamed {entry['name']} to {saved}")
    return restore_check(manifest=manifest, storage=storage)


def restore_check(*, manifest: dict[str, Any], storage: Storage) -> RestoreReport:
    """Row counts, every file's hash and the audit chain, against what the backup recorded."""
    rows = row_counts()
    problems = [
        f"table {table}: {rows.get(table, 0)} rows restored, {count} backed up"
        for table, count in sorted(manifest["rows"].items())
        if rows.get(table, 0) != count
    ]
    for entry in manifest["files"]:
        if not storage.exists(entry["name"]):
            problems.append(f"file {entry['name']}: missing after the restore")
            continue
        with storage.open(entry["name"], "rb") as fh:
            if _sha256_stream(fh) != entry["sha256"]:
                problems.append(f"file {entry['name']}: its SHA-256 differs from the backup's")
    problems += [f"file {name}: named by a row, absent" for name in manifest["missing_files"]]
    chain = chain_verify()
    if chain.broken is not None:
        problems.append(f"audit chain: {chain.broken}")
    return RestoreReport(
        rows=rows, files=len(manifest["files"]), audit_entries=chain.count, problems=problems
    )


def row_counts() -> dict[str, int]:
    tables = sorted(connection.introspection.table_names())
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = int(cursor.fetchone()[0])
    return counts


def referenced_files() -> set[str]:
    """Every stored name a row's file field holds."""
    names: set[str] = set()
    for model in apps.get_models():
        for f in model._meta.get_fields():
            if isinstance(f, models.FileField):
                values = model._default_manager.exclude(**{f.name: ""}).values_list(f.name)
                names.update(v for (v,) in values.iterator() if v)
    return names


def _pg_env() -> dict[str, str]:
    s = connection.settings_dict
    env = dict(os.environ)
    for key, var in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER")):
        if s.get(key):
            env[var] = str(s[key])
    if s.get("PASSWORD"):
        env["PGPASSWORD"] = str(s["PASSWORD"])
    env["PGDATABASE"] = str(s["NAME"])
    return env


def _run(command: list[str]) -> None:
    try:
        done = subprocess.run(command, env=_pg_env(), capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise BackupError(f"{command[0]} is not installed (PostgreSQL's client tools)") from exc
    if done.returncode != 0:
        raise BackupError(f"{command[0]} failed: {done.stderr.strip()[-2000:]}")


def _pg_dump_in_snapshot(out: Path) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
    name = "database.dump"
    _run(
        [
            "pg_dump",
            "--format=custom",
            "--no-owner",
            f"--snapshot={snapshot}",
            f"--file={out / name}",
        ]
    )
    return name


def _pg_restore(dump: Path) -> None:
    connection.close()  # pg_restore writes through its own session
    _run(["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error",
          f"--dbname={connection.settings_dict['NAME']}", str(dump)])  # fmt: skip


def _sqlite_copy(out: Path) -> str:
    name = "database.sqlite3"
    connection.ensure_connection()
    target = sqlite3.connect(out / name)
    try:
        connection.connection.backup(target)
    finally:
        target.close()
    return name


def _sqlite_restore(copy: Path) -> None:
    connection.ensure_connection()
    source = sqlite3.connect(copy)
    try:
        source.backup(connection.connection)
    finally:
        source.close()


def _copy_files(storage: Storage, into: Path) -> list[dict[str, Any]]:
    files = []
    for name in _walk(storage, ""):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with storage.open(name, "rb") as src, target.open("wb") as dst:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                dst.write(chunk)
        files.append({"name": name, "size": target.stat().st_size, "sha256": digest.hexdigest()})
    return files


def _walk(storage: Storage, folder: str) -> Iterator[str]:
    try:
        dirs, names = storage.listdir(folder)
    except FileNotFoundError:
        return
    for name in sorted(names):
        yield f"{folder}/{name}" if folder else name
    for sub in sorted(dirs):
        yield from _walk(storage, f"{folder}/{sub}" if folder else sub)


def _read_manifest(source: Path) -> dict[str, Any]:
    path = source / MANIFEST
    if not path.is_file():
        raise BackupError(f"{source} holds no {MANIFEST}: not a Clusterbid backup")
    manifest: dict[str, Any] = json.loads(path.read_text())
    if manifest.get("format") != FORMAT:
        raise BackupError(f"backup format {manifest.get('format')!r}; this version reads {FORMAT}")
    return manifest


def _sha256_path(path: Path) -> str:
    with path.open("rb") as fh:
        return _sha256_stream(fh)


def _sha256_stream(fh: Any) -> str:
    digest = hashlib.sha256()
    while chunk := fh.read(CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def remove_partial(out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
