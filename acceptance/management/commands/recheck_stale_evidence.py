"""`manage.py recheck_stale_evidence [--dry-run]`: after a deploy that changed the parsers."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from acceptance.services.parser_update import runs_recheck_stale
from engine.evidence.parsers.restore import FORMAT


class Command(BaseCommand):
    help = (
        "Re-check every open burn-in run (pending reservation, undecided pilot, canary before "
        "its window) that holds a file read under older parsers, so its checks say what "
        "today's parsers read. Decided runs keep their checks. Run it after each deploy; "
        "running it twice does nothing more."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="list the runs, queue nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        dry = options["dry_run"]
        found = runs_recheck_stale(dry_run=dry)
        self.stdout.write(f"Parsers' format: {FORMAT}.")
        if not found.open:
            self.stdout.write("No open burn-in run holds a file read under older parsers.")
        verb = "would be re-checked" if dry else "re-check queued"
        for run in found.open:
            self.stdout.write(f"Run #{run.pk} ({run.label}, {_owner(run)}): {verb}.")
        if found.decided:
            self.stdout.write(
                f"{found.decided} decided run(s) hold such files and keep the checks they were "
                "decided on."
            )


def _owner(run: Any) -> str:
    if run.reservation_id is not None:
        return f"reservation #{run.reservation_id}"
    if run.pilot_id is not None:
        return f"pilot #{run.pilot_id}"
    return f"canary #{run.canary_id}"
