"""`manage.py find_orphans [--delete] [--older-than-minutes N]`: list (or delete) the media
files no row points to."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.orphans import delete_orphans, find_orphans
from engine.formatting import data_size


class Command(BaseCommand):
    help = "List the stored files (media folder or bucket) no row points to; --delete removes them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--delete", action="store_true", help="remove the files listed")
        parser.add_argument(
            "--older-than-minutes",
            type=int,
            default=60,
            help="ignore files younger than this (their row may not be committed yet); default 60",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        minutes = options["older_than_minutes"]
        if minutes < 1:
            raise CommandError(f"--older-than-minutes must be at least 1, got {minutes}.")
        orphans = find_orphans(older_than=timedelta(minutes=minutes))
        for orphan in orphans:
            self.stdout.write(f"{orphan.name}\t{data_size(orphan.size)}")
        total = data_size(sum(o.size for o in orphans))
        if options["delete"]:
            count = delete_orphans(orphans)
            self.stdout.write(
                f"{count} orphaned file{'s' if count != 1 else ''} deleted ({total})."
            )
        else:
            self.stdout.write(
                f"{len(orphans)} orphaned file{'s' if len(orphans) != 1 else ''} ({total}); "
                "run with --delete to remove them."
            )
