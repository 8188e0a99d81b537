"""`manage.py analyse_failure BUNDLE_OR_FILES… [--rank-map FILE] [--world-size N] [--json]`."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from acceptance.failures import cli


class Command(BaseCommand):
    help = (
        "Analyse a failed run's evidence (archives, folders, logs, Flight Recorder dumps) and "
        "print the initiating rank and node, the evidence chain, the secondary ranks and what is "
        "missing. Exit 0 with the verdict, 2 with a one-line reason when the input is unusable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        code = cli.run(
            options["paths"],
            rank_map=options["rank_map"],
            world_size=options["world_size"],
            year=options["year"],
            as_json=options["json"],
            out=self.stdout,
            err=sys.stderr,
        )
        if code:
            sys.exit(code)
