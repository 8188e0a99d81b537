"""`manage.py analyze_failure PATH… [--rank-map FILE] [--world-size N] [--json] [--first-ever]`
(stable name).

PATH is a folder, an archive (.tar.gz/.tgz/.tar/.zip) or single logs and dumps. Exit 0 with the
verdict; exit 2 with a one-line reason on stderr when the bundle cannot be read.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from engine.failures import cli


class Command(BaseCommand):
    help = (
        "Analyse a failed run's evidence (archives, folders, logs, Flight Recorder dumps) and "
        "print the initiating rank and node, the evidence chain, the secondary ranks and what is "
        "missing. Exit 0 with the verdict, 2 with a one-line reason when the input is unusable."
    )

    # Offline: reads files, never the database or the URLs, so the system checks (which
    # import every view) would only double its start-up time.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        code = cli.run(
            options["paths"],
            rank_map=options["rank_map"],
            world_size=options["world_size"],
            year=options["year"],
            as_json=options["json"],
            first_ever=options["first_ever"],
            out=self.stdout,
            err=sys.stderr,
        )
        if code:
            sys.exit(code)
