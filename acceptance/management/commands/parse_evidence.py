"""`manage.py parse_evidence FILE [--kind KIND]`: print the parsed evidence as one JSON object."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from engine.evidence.parsers import KINDS, ParseError, parse_file


class Command(BaseCommand):
    help = (
        "Parse one burn-in evidence file and print it as JSON. The kind is detected unless "
        "--kind is given. Exit 0 on success, 2 (with a one-line reason) when the file is "
        "unrecognised, malformed or unreadable."
    )

    # Offline: reads files, never the database or the URLs, so the system checks (which
    # import every view) would only double its start-up time.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="path to the evidence file")
        parser.add_argument("--kind", choices=KINDS, help="skip detection and parse as KIND")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            parsed = parse_file(options["file"], kind=options["kind"])
        except ParseError as exc:
            sys.stderr.write(f"{options['file']}: {exc}\n")
            sys.exit(2)
        except OSError as exc:
            sys.stderr.write(f"{options['file']}: cannot read: {exc.strerror or exc}\n")
            sys.exit(2)
        self.stdout.write(json.dumps(parsed, allow_nan=False))
