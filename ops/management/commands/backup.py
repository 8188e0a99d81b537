from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ops.backup import BackupError, backup_create, remove_partial


class Command(BaseCommand):
    help = (
        "Write a consistent backup into a new folder: the database (pg_dump custom format, or "
        "the SQLite file), every stored file, and a manifest of SHA-256 sums and row counts."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", type=Path, help="a new or empty folder")

    def handle(self, *args: Any, out: Path, **options: Any) -> None:
        fresh = not out.exists()
        try:
            manifest = backup_create(out=out)
        except BackupError as exc:
            if fresh:
                remove_partial(out)
            raise CommandError(str(exc), returncode=1) from exc
        self.stdout.write(
            f"Backed up {sum(manifest['rows'].values())} rows in {len(manifest['rows'])} tables "
            f"and {len(manifest['files'])} files to {out}"
        )
        for name in manifest["missing_files"]:
            self.stderr.write(f"warning: a row names {name}, which the storage does not hold")
